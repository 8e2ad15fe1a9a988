use pendulum_layout::RegError;
use std::fmt;
use thiserror::Error;

/// What a reserved RX pipe is kept for: on-card sources that write 64-byte
/// records into it, which an Ethernet frame there would corrupt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reservation {
    /// The atomic unit's results ([`crate::Device::open_atomics`]).
    AtomicResults,
    /// The ACP link's messages ([`crate::Device::open_link`]).
    LinkMessages,
}

impl fmt::Display for Reservation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Reservation::AtomicResults => "the atomic unit's results",
            Reservation::LinkMessages => "the ACP link's messages",
        })
    }
}

/// Why a pipe cannot be reserved: Ethernet frames are steered to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SteeringConflict {
    /// It is the default pipe (non-IP frames go there).
    DefaultPipe,
    /// This many flows are bound to it.
    BoundFlows(usize),
}

impl fmt::Display for SteeringConflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SteeringConflict::DefaultPipe => f.write_str(
                "it is the default pipe, where frames that are not IP go; move the default pipe first (Device::set_default_pipe) or use another pipe",
            ),
            SteeringConflict::BoundFlows(n) => write!(
                f,
                "{n} bound flows steer to it; unbind them first (Device::unbind_flow) or use another pipe"
            ),
        }
    }
}

/// Everything the driver can report. Each message says what to do.
#[derive(Debug, Error)]
pub enum Error {
    #[error("no Pendulum card here: identity register reads {found:#010x}, expected {expected:#010x} (\"PNDL\"); check the device address and that the bitstream is loaded")]
    NotPendulum { found: u32, expected: u32 },
    #[error("card runs register map version {card_major}.{card_minor}, this driver speaks {driver_major}.x; use a driver and bitstream of the same major version")]
    VersionMismatch {
        card_major: u16,
        card_minor: u16,
        driver_major: u16,
    },
    #[error("pipe {pipe} does not exist: the card has {pipes} pipes (0..{pipes})")]
    NoSuchPipe { pipe: usize, pipes: usize },
    /// A TX pipe index at or beyond CAP_TX_PIPES (a card may have fewer TX
    /// pipes than RX pipes).
    #[error("TX pipe {pipe} does not exist: the card has {tx_pipes} TX pipes (0..{tx_pipes})")]
    NoSuchTxPipe { pipe: usize, tx_pipes: usize },
    #[error("pipe {0} is already open")]
    PipeInUse(usize),
    #[error(
        "ring size {bytes} bytes is not allowed: use a power of two from {min} to {max} bytes"
    )]
    BadRingSize { bytes: u32, min: u32, max: u32 },
    #[error("notification buffer size {bytes} bytes is not allowed: use a power of two from {min} to {max} bytes")]
    BadNotifBufSize { bytes: u32, min: u32, max: u32 },
    #[error("the card has no notification buffers (CAP_NOTIF_BUFS reads 0), so no RX pipe can report frames; load a bitstream that matches the register map version")]
    NoNotifBufs,
    #[error("the card refused a register write at {addr:#08x}: {}", cause.describe())]
    RegisterRefused { addr: u32, cause: RegError },
    #[error("the card refused a register write at {addr:#08x} with unknown cause code {code}")]
    RegisterRefusedUnknown { addr: u32, code: u32 },
    /// An RX ring entry the card could not have written (a length of 0 or
    /// over the largest frame, an entry running past the announced tail, or
    /// a record that does not decode); `unit` is where its header is.
    #[error("ring of pipe {pipe} is corrupt at unit {unit}: {what}")]
    CorruptRing {
        pipe: usize,
        unit: u32,
        what: String,
    },
    #[error("cannot free up to unit {to} on pipe {pipe}: only units {head}..{tail} are held")]
    BadFree {
        pipe: usize,
        to: u32,
        head: u32,
        tail: u32,
    },
    /// [`crate::RxPipe::free`] was given a unit inside a ring entry; nothing
    /// was freed.
    #[error("cannot free up to unit {to} on pipe {pipe}: it lies inside the entry at units {frame_start}..{frame_end}; free up to where an entry ends (a batch's end_unit, or a frame's end_unit); nothing was freed")]
    FreeInsideFrame {
        pipe: usize,
        to: u32,
        frame_start: u32,
        frame_end: u32,
    },
    /// [`crate::TxPipe::send`] was given a frame of a length the card drops
    /// (or the ring can never hold): `index` is its place in the call's
    /// frames. Every length is checked before anything is queued.
    #[error("frame {index} of the call ({len} bytes) cannot be sent here: frames must be 1 to {max} bytes (the card's largest frame, or what the TX ring can ever hold, whichever is smaller); nothing was queued")]
    BadFrameLength { index: usize, len: usize, max: u32 },
    #[error("TX pipe {pipe} has {free_units} free units (16 bytes each), {need_units} are needed: wait for completions (TxPipe::free_units) and retry")]
    TxRingFull {
        pipe: usize,
        need_units: u32,
        free_units: u32,
    },
    #[error("TX pipe {pipe} does not send out of RX pipe {rx}'s ring as asked: a pipe opened with Device::open_tx_pipe_over posts received frames with TxPipe::send_through (no copies), and only those of the RX pipe it was opened over")]
    TxOverRx { pipe: usize, rx: usize },
    /// [`crate::TxPipe::send_stamped`] on a pipe whose completion area has
    /// no stamp slots (not opened with [`crate::Device::open_tx_pipe`]).
    #[error("TX pipe {pipe} has no TX stamps: only a pipe opened with Device::open_tx_pipe has stamp slots (one opened over an RX ring, or bound to the link or the atomic unit, has none); send with TxPipe::send; nothing was queued")]
    TxStampsOff { pipe: usize },
    /// A TX stamp slot says DONE but not for the entry software posted
    /// there: the card (or a stray write) broke the pipe's completion area.
    /// The entry stays pending and its units are not reused.
    #[error("TX pipe {pipe}: the stamp slot of the entry at unit {unit} ({len} bytes) holds DONE {done} for the entry at unit {record_entry} of {record_len} bytes; the completion area is corrupt, so the stamp was not taken and the entry's units stay held: close the pipe")]
    BadTxStamp {
        pipe: usize,
        /// Where the entry was posted, and its length.
        unit: u32,
        len: u16,
        /// What the slot holds.
        record_entry: u32,
        record_len: u16,
        done: u16,
    },
    #[error("TX pipe {pipe} cannot send through unit {end}: it must lie from its tail {tail} up to the RX pipe's announced tail {rx_tail}")]
    BadSendThrough {
        pipe: usize,
        end: u32,
        tail: u32,
        rx_tail: u32,
    },
    #[error("the card did not respond: {0}")]
    NoResponse(String),
    #[error("the card was reset under this driver, or another driver opened it (SESSION no longer holds our token): every pipe, notification buffer, flow binding and in-flight atomic verb of this Device is gone; drop it and call Device::open again")]
    CardReset,
    /// DMA memory could not be had or used. `what` says what failed and
    /// what to do, in words (with the OS error's text when there is one);
    /// `source` is that OS error itself, for code that looks at its kind.
    #[error("DMA memory: {what}")]
    Dma {
        what: String,
        #[source]
        source: Option<std::io::Error>,
    },
    #[error("`{0}` is not a card address: use a PCI address (0000:03:00.0), pci:VENDOR:DEVICE in hex (pci:10ee:903f), or sim:/path/to/socket for the simulator")]
    BadAddress(String),
    #[error("{0}")]
    NoDevice(String),
    #[error("permission denied: {0}")]
    Permission(String),
    #[error("BAR access: {0}")]
    Bar(String),
    #[error("huge pages: {0}")]
    HugePages(String),
    /// Setting up VFIO failed. `what` says what failed and what to do, in
    /// words (with the OS error's text when there is one); `source` is that
    /// OS error itself, for code that looks at its kind.
    #[error("VFIO: {what}")]
    Vfio {
        what: String,
        #[source]
        source: Option<std::io::Error>,
    },
    #[error("{0}")]
    SimConnect(String),
    #[error("atomic verb at {addr:#x} refused: {}", match *status { 2 => "the address is not a multiple of 8 (of 64 for a commit)", 3 => "the address is beyond the atomic memory (CAP_ATOMIC_BYTES)", _ => "unknown opcode or reserved bytes set, or a commit cut short (its TX pipe switched off while it was read)" })]
    Atomic { addr: u32, status: u8 },
    /// [`crate::Device::open_atomics`] while an [`crate::Atomics`] of this
    /// Device is open: the card sends all results to one RX pipe.
    #[error("the atomic unit is already open on this device (RX pipe {rx}, TX pipe {tx}): the card sends every result to one RX pipe, so use that Atomics, or close it first (Device::close_atomics)")]
    AtomicsInUse { rx: usize, tx: usize },
    /// A submitted request used a tag from [`crate::Atomics::HELPER_TAGS_FIRST`]
    /// up, which the blocking calls keep for their own verbs; nothing was posted.
    #[error("atomic request with tag {tag} not sent: tags {first} to 65535 are kept for the driver's blocking calls (Atomics::cas and the others); number your requests below {first}; nothing was posted")]
    ReservedTag { tag: u16, first: u16 },
    #[error("atomic request not sent: {0}")]
    BadVerb(String),
    #[error("remote verb with tag {tag} came back {}", if *in_doubt { "in doubt: the peer lost its link state after we committed it, so it may or may not have been applied; read the word to find out" } else { "not delivered: our link was reset before it was decided; it was not applied, post it again" })]
    VerbHandedBack { tag: u16, in_doubt: bool },
    /// A steering setting naming a reserved pipe: nothing was written.
    #[error("pipe {pipe} is reserved for {by}: no Ethernet frame may be steered to it (its bytes would be read as one of those records), so it cannot be the default pipe, a flow's pipe or the only pipes of the fallback range; choose another pipe, or free it first (Device::close_atomics, Device::close_link); nothing was changed")]
    PipeReserved { pipe: usize, by: Reservation },
    /// [`crate::Device::open_atomics`] or [`crate::Device::open_link`] on an
    /// RX pipe that Ethernet frames are steered to: nothing was opened.
    #[error("pipe {pipe} cannot receive {by}: {conflict}")]
    CannotReserve {
        pipe: usize,
        by: Reservation,
        conflict: SteeringConflict,
    },
    /// [`crate::Device::open_link`] while a [`crate::Link`] of this Device
    /// is open: the card delivers every message to one RX pipe.
    #[error("the ACP link is already open on this device (RX pipe {rx}, TX pipe {tx}): the card delivers every message to one RX pipe, so use that Link, or close it first (Device::close_link)")]
    LinkInUse { rx: usize, tx: usize },
    #[error("flow table full for {key}: all {ways} slots this key can occupy hold other flows; unbind a flow (Device::unbind_flow) or leave this one to the fallback pipes")]
    FlowTableFull {
        key: pendulum_layout::flow::FlowKey,
        ways: usize,
    },
    #[error("fallback pipes {first}..{first}+{count} are not allowed: count must be a power of two and the range inside the card's {pipes} pipes")]
    BadFallback {
        first: usize,
        count: usize,
        pipes: usize,
    },
    #[error("the simulator refused the request: {0}")]
    Simulator(String),
    /// [`crate::EthernetPort`] on a card software cannot feed frames to:
    /// `card` says which and what to do.
    #[error("cannot {what} on {card}")]
    NoTestPort {
        what: &'static str,
        card: &'static str,
    },
    /// [`crate::Device::split`] into no cores, or into more than the card
    /// has notification buffers or TX pipes for (one of each per core).
    #[error("cannot split the device into {cores} per-core handles: each core owns one notification buffer and one TX pipe, and the card has {notif_bufs} notification buffers and {tx_pipes} TX pipes; ask for 1 to {max} cores", max = (*notif_bufs).min(*tx_pipes))]
    BadCoreCount {
        cores: usize,
        notif_bufs: usize,
        tx_pipes: usize,
    },
    /// A per-core handle ([`crate::CoreHandle`]) was asked to use a pipe or
    /// flow that another core owns (or none does); nothing was done.
    #[error("core {core} cannot use {what} {index}: {}", match owner { Some(o) => format!("it belongs to core {o}; use it through core {o}'s handle"), None => "no core owns it (RX pipe p belongs to the core whose notification buffer is p mod CAP_NOTIF_BUFS; split into more cores to use it)".to_string() })]
    NotThisCore {
        core: usize,
        what: &'static str,
        index: usize,
        owner: Option<usize>,
    },
    /// A thread panicked while its [`crate::CoreHandle`] held the device, so
    /// the driver's state may be half updated.
    #[error("another core's thread panicked while it held the device, which may have left the driver's state half updated: drop every handle and open the card again")]
    CorePanicked,
}

impl Error {
    /// [`Error::Dma`] with no OS error behind it.
    pub(crate) fn dma(what: impl Into<String>) -> Self {
        Error::Dma {
            what: what.into(),
            source: None,
        }
    }

    /// [`Error::Dma`] caused by `source`.
    pub(crate) fn dma_io(what: impl Into<String>, source: std::io::Error) -> Self {
        Error::Dma {
            what: what.into(),
            source: Some(source),
        }
    }

    /// [`Error::Vfio`] with no OS error behind it.
    pub(crate) fn vfio(what: impl Into<String>) -> Self {
        Error::Vfio {
            what: what.into(),
            source: None,
        }
    }

    /// [`Error::Vfio`] caused by `source`.
    pub(crate) fn vfio_io(what: impl Into<String>, source: std::io::Error) -> Self {
        Error::Vfio {
            what: what.into(),
            source: Some(source),
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

use crate::konst as c;
use crate::lut_ram::LutRam;
use crate::reset::SDFF;
use pendulum_layout::params::{ACP_CHANNELS as K, ACP_CHANNEL_BITS as CB};
use rust_hdl::prelude::*;

/// The 32-bit words of `ChannelState`'s K channels, in LUT-RAM: the first
/// part of the channel state moved out of flip-flops (#25: K = 256 in the
/// board build).
///
/// Per channel: the proof last heard (`key`, 0 after a flush) and the
/// decision check stated while COMMIT or REVERSE (`auth`), the digest of
/// the payload in each of the two payload buffers (`dig0`, `dig1`), and of
/// the receiver role, the proof of its last delivery, the digest it holds
/// tentatively (`rxd`) and the echo check a decision on it must state
/// (`rxx`: from its store, or from its verb's result once back).
///
/// The echoes the sender role expects are not stored. The held payload's
/// is its digest XOR `key`, the next one's its digest XOR `auth`: every
/// writer of the registers these replaced kept them so (a flush XORed the
/// key out of the first and set the second to the bare digest, as `key`
/// and `auth` became 0). One case differs, for the better: a payload
/// loaded in the cycle of a flush had its echo made with the key the flush
/// cleared.
///
/// A LUT-RAM reads at one address, so each word has one copy per port that
/// reads it: where the record is heard (`_h`), where one is formed (`_s`),
/// where the move is applied (`_a`) and where a verb's result is checked
/// (`_r`). Each word has one writer; a read sees the writes of earlier
/// cycles, as the registers' outputs did.
///
/// A word reads as 0 unless its flag (`*_ok`, in flip-flops) says the RAM
/// holds it: a reset clears every flag, and a flush clears the flags of the
/// words it zeroes (`key`, `auth`, the proof, `rxx`), on any number of
/// channels in one cycle, with no write to the RAM. A write sets its flag;
/// a flush in the same cycle wins.
#[derive(LogicBlock)]
pub struct ChannelWords {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,

    /// Read: the heard channel, and which of its buffers holds the payload
    /// held (`head`; the next one is in the other).
    pub heard_ch: Signal<In, Bits<CB>>,
    pub heard_head: Signal<In, Bit>,
    pub heard_tx_echo: Signal<Out, Bits<32>>,
    pub heard_next_echo: Signal<Out, Bits<32>>,
    pub heard_proof: Signal<Out, Bits<32>>,
    pub heard_rx_x: Signal<Out, Bits<32>>,
    /// Read: the slot's channel.
    pub slot_ch: Signal<In, Bits<CB>>,
    pub slot_auth: Signal<Out, Bits<32>>,
    pub slot_proof: Signal<Out, Bits<32>>,
    pub slot_rx_digest: Signal<Out, Bits<32>>,
    /// Read: the channel of the verb result being checked.
    pub result_ch: Signal<In, Bits<CB>>,
    pub result_rx_digest: Signal<Out, Bits<32>>,

    /// The heard channel's move, on `apply_ch`: a confirmation sets `key`
    /// to the proof heard (`key_value`), or to the decision check when the
    /// next payload's echo confirmed (`key_from_auth`); a new decision
    /// check; a delivery's proof; a store's digest and echo check.
    pub apply: Signal<In, Bit>,
    pub apply_ch: Signal<In, Bits<CB>>,
    pub confirm: Signal<In, Bit>,
    pub key_value: Signal<In, Bits<32>>,
    pub key_from_auth: Signal<In, Bit>,
    pub set_check: Signal<In, Bit>,
    pub check_value: Signal<In, Bits<32>>,
    pub deliver: Signal<In, Bit>,
    pub proof_value: Signal<In, Bits<32>>,
    pub store: Signal<In, Bit>,
    pub store_digest: Signal<In, Bits<32>>,
    pub store_x: Signal<In, Bits<32>>,
    /// A verb's echo check, once its result is back (on `result_ch`).
    pub x_set: Signal<In, Bit>,
    pub x_value: Signal<In, Bits<32>>,
    /// A payload loaded into buffer `load_bit` of `load_ch`.
    pub load: Signal<In, Bit>,
    pub load_ch: Signal<In, Bits<CB>>,
    pub load_bit: Signal<In, Bit>,
    pub load_digest: Signal<In, Bits<32>>,
    /// Per channel: flushed this cycle.
    pub flush: [Signal<In, Bit>; K],

    key_h: LutRam<Bits<32>, CB>,
    auth_h: LutRam<Bits<32>, CB>,
    auth_s: LutRam<Bits<32>, CB>,
    auth_a: LutRam<Bits<32>, CB>,
    dig0_h: LutRam<Bits<32>, CB>,
    dig1_h: LutRam<Bits<32>, CB>,
    proof_h: LutRam<Bits<32>, CB>,
    proof_s: LutRam<Bits<32>, CB>,
    rxd_s: LutRam<Bits<32>, CB>,
    rxd_r: LutRam<Bits<32>, CB>,
    rxx_store_h: LutRam<Bits<32>, CB>,
    rxx_res_h: LutRam<Bits<32>, CB>,
    key_ok: [SDFF<Bit>; K],
    auth_ok: [SDFF<Bit>; K],
    dig0_ok: [SDFF<Bit>; K],
    dig1_ok: [SDFF<Bit>; K],
    proof_ok: [SDFF<Bit>; K],
    rxd_ok: [SDFF<Bit>; K],
    rxx_ok: [SDFF<Bit>; K],
    /// `rxx` is the verb result's (not the store's).
    rxx_res: [SDFF<Bit>; K],
    /// The heard channel's words, 0 where their flag is clear.
    h_key: Signal<Local, Bits<32>>,
    h_auth: Signal<Local, Bits<32>>,
    h_dig0: Signal<Local, Bits<32>>,
    h_dig1: Signal<Local, Bits<32>>,
    h_rxx_store: Signal<Local, Bits<32>>,
    h_rxx_res: Signal<Local, Bits<32>>,
    h_rxx_from_res: Signal<Local, Bit>,
    /// `auth` of the channel whose move is applied.
    a_auth: Signal<Local, Bits<32>>,
    c_zero32: Constant<Bits<32>>,
}

impl Default for ChannelWords {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            heard_ch: Default::default(),
            heard_head: Default::default(),
            heard_tx_echo: Default::default(),
            heard_next_echo: Default::default(),
            heard_proof: Default::default(),
            heard_rx_x: Default::default(),
            slot_ch: Default::default(),
            slot_auth: Default::default(),
            slot_proof: Default::default(),
            slot_rx_digest: Default::default(),
            result_ch: Default::default(),
            result_rx_digest: Default::default(),
            apply: Default::default(),
            apply_ch: Default::default(),
            confirm: Default::default(),
            key_value: Default::default(),
            key_from_auth: Default::default(),
            set_check: Default::default(),
            check_value: Default::default(),
            deliver: Default::default(),
            proof_value: Default::default(),
            store: Default::default(),
            store_digest: Default::default(),
            store_x: Default::default(),
            x_set: Default::default(),
            x_value: Default::default(),
            load: Default::default(),
            load_ch: Default::default(),
            load_bit: Default::default(),
            load_digest: Default::default(),
            flush: std::array::from_fn(|_| Default::default()),
            key_h: Default::default(),
            auth_h: Default::default(),
            auth_s: Default::default(),
            auth_a: Default::default(),
            dig0_h: Default::default(),
            dig1_h: Default::default(),
            proof_h: Default::default(),
            proof_s: Default::default(),
            rxd_s: Default::default(),
            rxd_r: Default::default(),
            rxx_store_h: Default::default(),
            rxx_res_h: Default::default(),
            key_ok: std::array::from_fn(|_| Default::default()),
            auth_ok: std::array::from_fn(|_| Default::default()),
            dig0_ok: std::array::from_fn(|_| Default::default()),
            dig1_ok: std::array::from_fn(|_| Default::default()),
            proof_ok: std::array::from_fn(|_| Default::default()),
            rxd_ok: std::array::from_fn(|_| Default::default()),
            rxx_ok: std::array::from_fn(|_| Default::default()),
            rxx_res: std::array::from_fn(|_| Default::default()),
            h_key: Default::default(),
            h_auth: Default::default(),
            h_dig0: Default::default(),
            h_dig1: Default::default(),
            h_rxx_store: Default::default(),
            h_rxx_res: Default::default(),
            h_rxx_from_res: Default::default(),
            a_auth: Default::default(),
            c_zero32: c(0),
        }
    }
}

impl Logic for ChannelWords {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- The RAMs: where each copy reads, and its one writer ----
        self.key_h.read_address.next = self.heard_ch.val();
        self.auth_h.read_address.next = self.heard_ch.val();
        self.dig0_h.read_address.next = self.heard_ch.val();
        self.dig1_h.read_address.next = self.heard_ch.val();
        self.proof_h.read_address.next = self.heard_ch.val();
        self.rxx_store_h.read_address.next = self.heard_ch.val();
        self.rxx_res_h.read_address.next = self.heard_ch.val();
        self.auth_s.read_address.next = self.slot_ch.val();
        self.proof_s.read_address.next = self.slot_ch.val();
        self.rxd_s.read_address.next = self.slot_ch.val();
        self.rxd_r.read_address.next = self.result_ch.val();
        self.auth_a.read_address.next = self.apply_ch.val();

        self.key_h.write_address.next = self.apply_ch.val();
        self.key_h.write_data.next = self.key_value.val();
        self.key_h.write_enable.next = self.apply.val() & self.confirm.val();
        self.auth_h.write_address.next = self.apply_ch.val();
        self.auth_h.write_data.next = self.check_value.val();
        self.auth_h.write_enable.next = self.apply.val() & self.set_check.val();
        self.auth_s.write_address.next = self.apply_ch.val();
        self.auth_s.write_data.next = self.check_value.val();
        self.auth_s.write_enable.next = self.apply.val() & self.set_check.val();
        self.auth_a.write_address.next = self.apply_ch.val();
        self.auth_a.write_data.next = self.check_value.val();
        self.auth_a.write_enable.next = self.apply.val() & self.set_check.val();
        self.proof_h.write_address.next = self.apply_ch.val();
        self.proof_h.write_data.next = self.proof_value.val();
        self.proof_h.write_enable.next = self.apply.val() & self.deliver.val();
        self.proof_s.write_address.next = self.apply_ch.val();
        self.proof_s.write_data.next = self.proof_value.val();
        self.proof_s.write_enable.next = self.apply.val() & self.deliver.val();
        self.rxd_s.write_address.next = self.apply_ch.val();
        self.rxd_s.write_data.next = self.store_digest.val();
        self.rxd_s.write_enable.next = self.apply.val() & self.store.val();
        self.rxd_r.write_address.next = self.apply_ch.val();
        self.rxd_r.write_data.next = self.store_digest.val();
        self.rxd_r.write_enable.next = self.apply.val() & self.store.val();
        self.rxx_store_h.write_address.next = self.apply_ch.val();
        self.rxx_store_h.write_data.next = self.store_x.val();
        self.rxx_store_h.write_enable.next = self.apply.val() & self.store.val();
        self.rxx_res_h.write_address.next = self.result_ch.val();
        self.rxx_res_h.write_data.next = self.x_value.val();
        self.rxx_res_h.write_enable.next = self.x_set.val();
        self.dig0_h.write_address.next = self.load_ch.val();
        self.dig0_h.write_data.next = self.load_digest.val();
        self.dig0_h.write_enable.next = self.load.val() & !self.load_bit.val();
        self.dig1_h.write_address.next = self.load_ch.val();
        self.dig1_h.write_data.next = self.load_digest.val();
        self.dig1_h.write_enable.next = self.load.val() & self.load_bit.val();
        self.key_h.write_clock.next = self.clock.val();
        self.auth_h.write_clock.next = self.clock.val();
        self.auth_s.write_clock.next = self.clock.val();
        self.auth_a.write_clock.next = self.clock.val();
        self.dig0_h.write_clock.next = self.clock.val();
        self.dig1_h.write_clock.next = self.clock.val();
        self.proof_h.write_clock.next = self.clock.val();
        self.proof_s.write_clock.next = self.clock.val();
        self.rxd_s.write_clock.next = self.clock.val();
        self.rxd_r.write_clock.next = self.clock.val();
        self.rxx_store_h.write_clock.next = self.clock.val();
        self.rxx_res_h.write_clock.next = self.clock.val();

        // ---- Reads, 0 where the flag is clear ----
        self.h_key.next = self.c_zero32.val();
        self.h_auth.next = self.c_zero32.val();
        self.h_dig0.next = self.c_zero32.val();
        self.h_dig1.next = self.c_zero32.val();
        self.h_rxx_store.next = self.c_zero32.val();
        self.h_rxx_res.next = self.c_zero32.val();
        self.h_rxx_from_res.next = false;
        self.heard_proof.next = self.c_zero32.val();
        self.slot_auth.next = self.c_zero32.val();
        self.slot_proof.next = self.c_zero32.val();
        self.slot_rx_digest.next = self.c_zero32.val();
        self.result_rx_digest.next = self.c_zero32.val();
        self.a_auth.next = self.c_zero32.val();
        for i in 0..K {
            if self.heard_ch.val().index() == i {
                if self.key_ok[i].q.val() {
                    self.h_key.next = self.key_h.read_data.val();
                }
                if self.auth_ok[i].q.val() {
                    self.h_auth.next = self.auth_h.read_data.val();
                }
                if self.dig0_ok[i].q.val() {
                    self.h_dig0.next = self.dig0_h.read_data.val();
                }
                if self.dig1_ok[i].q.val() {
                    self.h_dig1.next = self.dig1_h.read_data.val();
                }
                if self.proof_ok[i].q.val() {
                    self.heard_proof.next = self.proof_h.read_data.val();
                }
                if self.rxx_ok[i].q.val() {
                    self.h_rxx_store.next = self.rxx_store_h.read_data.val();
                    self.h_rxx_res.next = self.rxx_res_h.read_data.val();
                }
                self.h_rxx_from_res.next = self.rxx_res[i].q.val();
            }
            if self.slot_ch.val().index() == i {
                if self.auth_ok[i].q.val() {
                    self.slot_auth.next = self.auth_s.read_data.val();
                }
                if self.proof_ok[i].q.val() {
                    self.slot_proof.next = self.proof_s.read_data.val();
                }
                if self.rxd_ok[i].q.val() {
                    self.slot_rx_digest.next = self.rxd_s.read_data.val();
                }
            }
            if (self.result_ch.val().index() == i) & self.rxd_ok[i].q.val() {
                self.result_rx_digest.next = self.rxd_r.read_data.val();
            }
            if (self.apply_ch.val().index() == i) & self.auth_ok[i].q.val() {
                self.a_auth.next = self.auth_a.read_data.val();
            }
        }
        // The key a confirmation by the next payload's echo sets.
        if self.key_from_auth.val() {
            self.key_h.write_data.next = self.a_auth.val();
        }
        // The echoes the sender role expects.
        self.heard_tx_echo.next = self.h_dig0.val() ^ self.h_key.val();
        self.heard_next_echo.next = self.h_dig1.val() ^ self.h_auth.val();
        if self.heard_head.val() {
            self.heard_tx_echo.next = self.h_dig1.val() ^ self.h_key.val();
            self.heard_next_echo.next = self.h_dig0.val() ^ self.h_auth.val();
        }
        self.heard_rx_x.next = self.h_rxx_store.val();
        if self.h_rxx_from_res.val() {
            self.heard_rx_x.next = self.h_rxx_res.val();
        }

        // ---- Flags: set by a write, cleared by a reset or a flush ----
        for i in 0..K {
            self.key_ok[i].clock.next = self.clock.val();
            self.key_ok[i].reset.next = self.reset.val();
            self.key_ok[i].d.next = self.key_ok[i].q.val();
            self.auth_ok[i].clock.next = self.clock.val();
            self.auth_ok[i].reset.next = self.reset.val();
            self.auth_ok[i].d.next = self.auth_ok[i].q.val();
            self.dig0_ok[i].clock.next = self.clock.val();
            self.dig0_ok[i].reset.next = self.reset.val();
            self.dig0_ok[i].d.next = self.dig0_ok[i].q.val();
            self.dig1_ok[i].clock.next = self.clock.val();
            self.dig1_ok[i].reset.next = self.reset.val();
            self.dig1_ok[i].d.next = self.dig1_ok[i].q.val();
            self.proof_ok[i].clock.next = self.clock.val();
            self.proof_ok[i].reset.next = self.reset.val();
            self.proof_ok[i].d.next = self.proof_ok[i].q.val();
            self.rxd_ok[i].clock.next = self.clock.val();
            self.rxd_ok[i].reset.next = self.reset.val();
            self.rxd_ok[i].d.next = self.rxd_ok[i].q.val();
            self.rxx_ok[i].clock.next = self.clock.val();
            self.rxx_ok[i].reset.next = self.reset.val();
            self.rxx_ok[i].d.next = self.rxx_ok[i].q.val();
            self.rxx_res[i].clock.next = self.clock.val();
            self.rxx_res[i].reset.next = self.reset.val();
            self.rxx_res[i].d.next = self.rxx_res[i].q.val();
            // The result's echo check first: a store in the same cycle wins.
            if self.x_set.val() & (self.result_ch.val().index() == i) {
                self.rxx_ok[i].d.next = true;
                self.rxx_res[i].d.next = true;
            }
            if self.apply.val() & (self.apply_ch.val().index() == i) {
                if self.confirm.val() {
                    self.key_ok[i].d.next = true;
                }
                if self.set_check.val() {
                    self.auth_ok[i].d.next = true;
                }
                if self.deliver.val() {
                    self.proof_ok[i].d.next = true;
                }
                if self.store.val() {
                    self.rxd_ok[i].d.next = true;
                    self.rxx_ok[i].d.next = true;
                    self.rxx_res[i].d.next = false;
                }
            }
            if self.load.val() & (self.load_ch.val().index() == i) {
                if self.load_bit.val() {
                    self.dig1_ok[i].d.next = true;
                } else {
                    self.dig0_ok[i].d.next = true;
                }
            }
            if self.flush[i].val() {
                self.key_ok[i].d.next = false;
                self.auth_ok[i].d.next = false;
                self.proof_ok[i].d.next = false;
                self.rxx_ok[i].d.next = false;
            }
        }
    }
}

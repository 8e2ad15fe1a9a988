//! What the link's stages read of one channel from `ChannelState`: the
//! decision on a heard record (`HeardChannel`) and the record formed for a
//! slot (`SlotChannel`), one bundle per read port (`ChannelReads`
//! reads them).

use rust_hdl::prelude::*;

/// What the decision on a heard record needs of its channel.
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct HeardChannel {
    /// Sender role `{bit, state}`; a payload held, being handed back; the
    /// echo it must have (its digest XOR the proof last heard); it is a
    /// verb; the last verb result not yet handed up.
    pub tx: Bits<4>,
    pub holding: Bit,
    pub returning: Bit,
    pub tx_echo: Bits<32>,
    pub tx_verb: Bit,
    pub result_pending: Bit,
    /// Sender role: a next payload is held (it joins the decision on the
    /// one held), and the echo it must have while COMMIT_OFFER (its digest
    /// XOR the decision check); the result buffer where the result of the
    /// echo decided on is kept (the other may hold a confirmed verb's
    /// result, waiting to be handed up).
    pub next_held: Bit,
    pub next_echo: Bits<32>,
    pub rbuf: Bit,
    /// Receiver role `{bit, state}`; the echo check a decision must state;
    /// the peer waits for our proof; the tentative payload is a verb.
    pub rx: Bits<3>,
    pub rx_x: Bits<32>,
    pub proof_due: Bit,
    pub rx_verb: Bit,
    /// Receiver role: the proof of the last delivery (an echo carries it).
    pub proof: Bits<32>,
}

/// What a record states of its channel (`RecordForm`).
#[derive(Clone, Copy, Debug, Default, PartialEq, LogicStruct)]
pub struct SlotChannel {
    /// Sender role `{bit, state}`, its decision check, its payload is a verb;
    /// which payload buffer holds the payload held (the next one is in the
    /// other), and whether the next one is a verb.
    pub tx: Bits<4>,
    pub auth: Bits<32>,
    pub tx_verb: Bit,
    pub head: Bit,
    pub next_verb: Bit,
    /// The channel's record turns: a COMMIT_OFFER record folds its decision
    /// into an OFFER of the next payload (`turn` clear) or states it plainly
    /// (set); a tentative receiver whose peer is behind sends its echo
    /// (`pturn` clear) or its proof (set).
    pub turn: Bit,
    pub pturn: Bit,
    /// Receiver role `{bit, state}`; the digest held tentatively; the proof
    /// of the last delivery, and whether the peer waits for it; the
    /// tentative payload is a verb, and its result is back.
    pub rx: Bits<3>,
    pub rx_digest: Bits<32>,
    pub proof: Bits<32>,
    pub proof_due: Bit,
    pub rx_verb: Bit,
    pub res_ready: Bit,
    /// The last delivery was a verb (its result goes with the proof).
    pub pverb: Bit,
    /// The channel's last move (the transition byte).
    pub trans: Bits<8>,
    /// Not yet stated since it changed: the sender role (a move, a new
    /// decision check), the receiver role (a move; an echo still to go).
    pub tx_news: Bit,
    pub rx_news: Bit,
}

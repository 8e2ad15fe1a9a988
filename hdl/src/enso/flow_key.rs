use crate::xor_matrix;
use pendulum_layout::flow::FlowKey;
use pendulum_layout::frame::{ETHERTYPE_IPV4, ETHERTYPE_IPV6, ETHERTYPE_QINQ, ETHERTYPE_VLAN};
use rust_hdl::prelude::*;

/// Reads a frame's flow key from its first beat, by the rule of
/// `pendulum_layout::flow` (IPv4 or IPv6 addresses, protocol, and TCP/UDP
/// ports where the beat certainly holds them; past up to two VLAN tags). Combinational; a few LUTs of
/// compares and muxes, no arithmetic.
///
/// The key is laid out as the FLOW_KEY registers hold it
/// (`FlowKey::bytes`), and `v4_in` is the RSS hash input of an IPv4 key
/// (source, destination, ports); an IPv6 key's hash input is key bytes 0..36.
#[derive(LogicBlock, Default)]
pub struct FlowKeyParser {
    /// A frame's first beat, byte k in bits 8k+7..8k.
    pub beat: Signal<In, Bits<512>>,
    pub key: Signal<Out, Bits<320>>,
    /// The frame is IPv4 or IPv6.
    pub ip: Signal<Out, Bit>,
    pub v6: Signal<Out, Bit>,
    pub v4_in: Signal<Out, Bits<96>>,
}

impl Logic for FlowKeyParser {
    fn update(&mut self) {
        // rust-hdl's own simulator: the layout's rule, on the beat's bytes.
        let key = FlowKey::from_frame(&xor_matrix::bytes_of(self.beat.val()));
        let bytes = key
            .map(|k| k.bytes())
            .unwrap_or([0; pendulum_layout::flow::KEY_BYTES]);
        // The IPv4 hash input (12 bytes); zero for IPv6 and non-IP frames.
        let v4_in = key
            .map(|k| k.hash_input())
            .filter(|v| v.len() == 12)
            .unwrap_or_default();
        self.key.next = xor_matrix::bits_of(&bytes);
        self.v4_in.next = xor_matrix::bits_of(&v4_in);
        self.ip.next = key.is_some();
        self.v6.next = key.map(|k| k.v6).unwrap_or(false);
    }
    fn connect(&mut self) {
        self.key.connect();
        self.ip.connect();
        self.v6.connect();
        self.v4_in.connect();
    }
    fn hdl(&self) -> Verilog {
        // Frame byte k is beat[8*k +: 8]; key byte k is key[8*k +: 8].
        Verilog::Custom(
            r#"// Up to two VLAN tags (TPID_VLAN or TPID_QINQ) before the EtherType:
// `hb` is the beat with them taken out, so frame byte k + t is hb byte k
// (t = 0, 4 or 8) and the rule below reads untagged offsets. Its bytes
// 0..11 (the MACs) are not the frame's and are read nowhere.
wire [15:0] et0 = {beat[8*12 +: 8], beat[8*13 +: 8]};
wire [15:0] et1 = {beat[8*16 +: 8], beat[8*17 +: 8]};
wire tag0 = (et0 == TPID_VLAN) | (et0 == TPID_QINQ);
wire tag1 = (et1 == TPID_VLAN) | (et1 == TPID_QINQ);
wire two_tags = tag0 & tag1;
wire [511:0] hb = !tag0 ? beat : !tag1 ? {32'b0, beat[511:32]} : {64'b0, beat[511:64]};
wire [15:0] ethertype = {hb[8*12 +: 8], hb[8*13 +: 8]};
wire is_v4 = ethertype == ET_IPV4;
wire is_v6 = ethertype == ET_IPV6;
wire [7:0] v4_proto = hb[8*23 +: 8];
// Ports only for TCP/UDP with a 20-byte header (IHL 5) that is not a fragment.
wire v4_ports = ((v4_proto == 8'd6) | (v4_proto == 8'd17)) & (hb[8*14 +: 4] == 4'd5)
    & (hb[8*20 +: 6] == 6'd0) & (hb[8*21 +: 8] == 8'd0);
wire [7:0] v6_next = hb[8*20 +: 8];
// Behind two tags an IPv6 header's ports (frame bytes 62..66) leave the beat.
wire v6_ports = ((v6_next == 8'd6) | (v6_next == 8'd17)) & !two_tags;
// The MACs and the header fields no key uses (IPv4 ToS, length, id, TTL,
// checksum; IPv6 flow label, length, hop limit) are read nowhere.
/* verilator lint_off UNUSEDSIGNAL */
wire [511:0] unused_beat = beat;
wire [511:0] unused_hb = hb;
/* verilator lint_on UNUSEDSIGNAL */
always @(*) begin
    key = 320'b0;
    ip = is_v4 | is_v6;
    v6 = is_v6;
    if (is_v6) begin
        key[8*0 +: 128] = hb[8*22 +: 128];
        key[8*16 +: 128] = hb[8*38 +: 128];
        if (v6_ports) key[8*32 +: 32] = hb[8*54 +: 32];
        key[8*36 +: 8] = v6_next;
        key[8*37 +: 8] = 8'd6;
    end else if (is_v4) begin
        key[8*0 +: 32] = hb[8*26 +: 32];
        key[8*16 +: 32] = hb[8*30 +: 32];
        if (v4_ports) key[8*32 +: 32] = hb[8*34 +: 32];
        key[8*36 +: 8] = v4_proto;
        key[8*37 +: 8] = 8'd4;
    end
    v4_in = {key[8*32 +: 32], key[8*16 +: 32], key[8*0 +: 32]};
end"#
                .replace("TPID_VLAN", &verilog_hex16(ETHERTYPE_VLAN))
                .replace("TPID_QINQ", &verilog_hex16(ETHERTYPE_QINQ))
                .replace("ET_IPV4", &verilog_hex16(ETHERTYPE_IPV4))
                .replace("ET_IPV6", &verilog_hex16(ETHERTYPE_IPV6)),
        )
    }
}

/// A 16-bit Verilog literal (the EtherType as the wire orders it: the
/// parser reads it as `{byte 12, byte 13}`).
fn verilog_hex16(v: u16) -> String {
    format!("16'h{v:04X}")
}

// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "reply_addr.vh"

/*
 * Reply-frame builder: one RoCEv2 frame answering a received packet, the
 * notification point's CNP (SPEC.md §6.3, cnp_notify.v, EXT_BYTES 16: the
 * reserved bytes) and the responder's ACK/NAK (SPEC.md §6.10,
 * roce_responder.v, EXT_BYTES 16: a selective ACK's AETH and extension,
 * SHORT_EXT_BYTES 4: a plain ACK's or NAK's AETH alone). Ethernet with the received
 * packet's MACs swapped, an 802.1Q tag if it had one (PCP s_pcp, its VLAN
 * ID), IPv4 or IPv6 with its addresses swapped (TTL/hop limit 64, DSCP
 * s_dscp, ECN 0), UDP to ROCE_UDP_PORT from its source port (checksum 0),
 * the BTH and the extension bytes as given, and the ICRC (SPEC.md §3.5).
 *
 * A request is taken with s_start while idle: its fields are registered
 * then, the extension bytes with s_ext_valid, in the start's cycle or in a
 * later one (the notification point's extent comes from a division).
 * The cycle after the extension bytes, BUILD registers the frame, the
 * ICRC as CRC_SLICES partial sums and the IPv4 header's sum of words; the
 * next, CRC adds the sums and folds the checksum into the frame (FIX does,
 * with a short form: below); then
 * ceil(len / KEEP_WIDTH) output beats straight from the frame register.
 * With SHORT_EXT_BYTES a request may instead carry the shorter extension
 * (s_short): the bytes past it are zero, so the frame is the long one cut
 * short, and its ICRC is the long input's with the trailing zeros taken
 * back out (a constant 32x32 map, the CRC's zero step run backwards), in
 * one more cycle (FIX) after CRC, which then only adds the sums.
 *
 * | port                | width       | meaning                                        |
 * |---------------------|-------------|------------------------------------------------|
 * | s_start             | 1           | take the request (only while idle)             |
 * | idle                | 1           | no request held: s_start is taken              |
 * | s_time              | 64          | emit tick, m_axis_tuser of every beat           |
 * | s_reply_addr        | 382         | the received packet's addresses, unpacked here |
 * |                     |             | alone (rtl/reply_addr.vh): IPv6 (else IPv4),   |
 * |                     |             | its outer VLAN tag, MACs, IPs (IPv4 in the low |
 * |                     |             | 32 bits) and UDP source port (the reply's)     |
 * | s_dscp/pcp          | 6/3         | the reply's DSCP and 802.1p priority            |
 * | s_bth               | 96          | the reply's BTH, first wire byte in 7:0        |
 * | s_ext_valid         | 1           | s_ext holds the extension bytes (at s_start or |
 * |                     |             | in a later cycle)                              |
 * | s_ext               | EXT_BYTES*8 | the bytes after the BTH, first wire byte in 7:0 |
 * | s_short             | 1           | the extension is SHORT_EXT_BYTES long (at      |
 * |                     |             | s_start; 0 when SHORT_EXT_BYTES is 0)          |
 * | m_axis_t*           | DATA_WIDTH  | the frame (no FCS)                             |
 * | m_axis_tuser        | 64          | s_time, on every beat                          |
 *
 * Frame lengths: 58 + the extension's bytes (IPv4), + 4 with the VLAN tag,
 * + 20 for IPv6 (CNP 74/78/94/98, ACK 62/66/82/86, selective ACK
 * 74/78/94/98).
 */
module roce_reply_frame #(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH/8,
    parameter [15:0] ROCE_UDP_PORT = 16'd4791,
    parameter EXT_BYTES = 16,
    // 0: every frame has EXT_BYTES.
    parameter SHORT_EXT_BYTES = 0
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire                   s_start,
    output wire                   idle,
    input  wire [63:0]            s_time,
    input  wire [`REPLY_ADDR_WIDTH-1:0] s_reply_addr,
    input  wire [5:0]             s_dscp,
    input  wire [2:0]             s_pcp,
    input  wire [95:0]            s_bth,
    input  wire                   s_ext_valid,
    input  wire [EXT_BYTES*8-1:0] s_ext,
    input  wire                   s_short,

    output wire [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire [63:0]            m_axis_tuser
);

`include "roce_bytes.vh"

// UDP, BTH and the extension bytes.
localparam TRANSPORT_BYTES = 8 + 12 + EXT_BYTES;
localparam UDP_LENGTH = TRANSPORT_BYTES + 4;
localparam IP_TOTAL_LENGTH = 20 + UDP_LENGTH;
localparam HAS_SHORT = SHORT_EXT_BYTES != 0;
// How much shorter a short frame is (0 without one).
localparam SHORT_CUT = HAS_SHORT ? EXT_BYTES - SHORT_EXT_BYTES : 0;
localparam UDP_LENGTH_SHORT = UDP_LENGTH - SHORT_CUT;
localparam IP_TOTAL_LENGTH_SHORT = IP_TOTAL_LENGTH - SHORT_CUT;
// The frame lengths of the long extension; the longest: Ethernet + 802.1Q
// + IPv6 + UDP + BTH + extension + ICRC.
localparam LEN_IPV4 = 14 + IP_TOTAL_LENGTH;
localparam FRAME_BYTES = LEN_IPV4 + 20 + 4;
localparam BEATS = (FRAME_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
localparam BEAT_WIDTH = $clog2(BEATS + 1);
// ICRC input, state 0 (SPEC.md §6.3, §6.10): zeros, 00000000 FFFFFFFF (the
// LRH stand-in with the initial register folded in), then the masked
// region (IPv6 header, UDP, BTH, extension; an IPv4 header padded with
// zeros at the front).
localparam CRC_BYTES = 8 + 40 + TRANSPORT_BYTES;
// BUILD registers the ICRC as CRC_SLICES partial sums, one per CRC_BYTES*8
// / CRC_SLICES input bits; CRC adds them (XOR). From state 0 the CRC is
// linear in its input, so the sums add up to the whole. Each stage is a
// few levels of XOR.
localparam CRC_SLICES = 16;
localparam CRC_SLICE_BITS = CRC_BYTES * 8 / CRC_SLICES;

localparam [2:0]
    FRAME_IDLE = 3'd0,
    FRAME_EXT = 3'd1,
    FRAME_BUILD = 3'd2,
    FRAME_CRC = 3'd3,
    FRAME_FIX = 3'd4,
    FRAME_SEND = 3'd5;

// Illegal parameters stop elaboration: the instance of a module that does
// not exist names the rule (Icarus Verilog 11 has no elaboration $error).
generate
    if (KEEP_WIDTH * 8 != DATA_WIDTH || (DATA_WIDTH != 64 && DATA_WIDTH != 128 && DATA_WIDTH != 256 && DATA_WIDTH != 512)) begin : g_bad_width
        roce_reply_frame_DATA_WIDTH_must_be_64_128_256_or_512_with_KEEP_WIDTH_DATA_WIDTH_over_8 bad_width();
    end
    // Even, for the ICRC's slices; at most 44, for 7-bit frame lengths.
    if (EXT_BYTES < 2 || EXT_BYTES > 44 || EXT_BYTES % 2 != 0) begin : g_bad_ext_bytes
        roce_reply_frame_EXT_BYTES_must_be_even_2_to_44 bad_ext_bytes();
    end
    if (SHORT_EXT_BYTES < 0 || SHORT_EXT_BYTES >= EXT_BYTES || SHORT_EXT_BYTES % 2 != 0) begin : g_bad_short_ext_bytes
        roce_reply_frame_SHORT_EXT_BYTES_must_be_even_and_below_EXT_BYTES bad_short_ext_bytes();
    end
    if (CRC_SLICE_BITS * CRC_SLICES != CRC_BYTES * 8) begin : g_bad_crc_slices
        roce_reply_frame_CRC_SLICES_must_divide_the_ICRC_input_bits bad_crc_slices();
    end
endgenerate

// The request, registered at s_start (the extension bytes with s_ext_valid).
reg [2:0]   state_reg = FRAME_IDLE, state_next;
reg [63:0]  time_reg;
reg         ipv6_reg;
reg         vlan_valid_reg;
reg [11:0]  vlan_id_reg;
reg [47:0]  eth_dst_reg;
reg [47:0]  eth_src_reg;
reg [127:0] ip_src_reg;
reg [127:0] ip_dst_reg;
reg [15:0]  udp_sport_reg;
reg [5:0]   dscp_reg;
reg [2:0]   pcp_reg;
reg [95:0]  bth_reg;
reg [EXT_BYTES*8-1:0] ext_reg;
reg         short_reg;

// A frame's length (7 bits: at most 44 + 58 + 24 bytes).
function [6:0] frame_len(input is_short, input is_ipv6, input has_vlan);
    frame_len = LEN_IPV4[6:0] - (is_short ? SHORT_CUT[6:0] : 7'd0) + (is_ipv6 ? 7'd20 : 7'd0)
                + (has_vlan ? 7'd4 : 7'd0);
endfunction
// The bytes a short extension keeps.
localparam [EXT_BYTES*8-1:0] SHORT_EXT_MASK = ~({EXT_BYTES*8{1'b1}} << (SHORT_EXT_BYTES * 8));

assign idle = state_reg == FRAME_IDLE;
wire   take = idle && s_start;
wire   take_ext = s_ext_valid && (take || state_reg == FRAME_EXT);

reg [FRAME_BYTES*8-1:0] frame_reg, frame_next;
reg [32*CRC_SLICES-1:0] crc_part_reg;
// The IPv4 header checksum's sum of words, registered in BUILD; CRC (FIX)
// folds
// it into the frame (the ICRC masks that field, so it need not wait).
reg [19:0]  csum_sum_reg;
reg [6:0]   frame_len_reg, frame_len_next;
reg [BEAT_WIDTH-1:0] beat_reg, beat_next;

wire [32*CRC_SLICES-1:0] crc_part;

reg [31:0] crc_state;
integer crc_slice;
always @* begin
    crc_state = 32'd0;
    for (crc_slice = 0; crc_slice < CRC_SLICES; crc_slice = crc_slice + 1) begin
        crc_state = crc_state ^ crc_part_reg[crc_slice*32 +: 32];
    end
end

localparam [31:0] POLY_REFLECTED = 32'hEDB88320;
// Elaboration only: no run-time coverage points.
/* verilator coverage_off */
// Row n (bits n*32 +: 32) marks the state bits that give bit n of the state
// before `zero_bits` zero input bits (crc32_lfsr.v's reflected step run
// backwards: the bit shifted out is the new top bit, as the polynomial's
// top bit is 1).
function [32*32-1:0] crc32_unzero_matrix(input integer zero_bits);
    reg [31:0] s;
    integer j, k, n;
    begin
        crc32_unzero_matrix = 0;
        for (j = 0; j < 32; j = j + 1) begin
            s = 32'd1 << j;
            for (k = 0; k < zero_bits; k = k + 1) begin
                s = s[31] ? {s[30:0] ^ POLY_REFLECTED[30:0], 1'b1} : {s[30:0], 1'b0};
            end
            for (n = 0; n < 32; n = n + 1) begin
                crc32_unzero_matrix[n*32 + j] = s[n];
            end
        end
    end
endfunction
/* verilator coverage_on */

localparam [32*32-1:0] UNZERO = crc32_unzero_matrix(SHORT_CUT * 8);

// With a short form, CRC registers the sum and FIX folds it in: the short
// frame's ICRC state is the sum's with its SHORT_CUT zero bytes taken out.
reg  [31:0] crc_sum_reg;
wire [31:0] crc_unzeroed;
genvar unzero_bit;
generate
    for (unzero_bit = 0; unzero_bit < 32; unzero_bit = unzero_bit + 1) begin : g_unzero
        assign crc_unzeroed[unzero_bit] = ^(crc_sum_reg & UNZERO[unzero_bit*32 +: 32]);
    end
endgenerate
wire [31:0] icrc_state = !HAS_SHORT ? crc_state : (short_reg ? crc_unzeroed : crc_sum_reg);
// The state whose cycle writes the ICRC and the IPv4 checksum.
wire        fold_state = state_reg == (HAS_SHORT ? FRAME_FIX : FRAME_CRC);

// Output beats straight from the frame register.
localparam PADDED_BYTES = BEATS * KEEP_WIDTH;
wire [PADDED_BYTES*8-1:0] frame_padded = {{(PADDED_BYTES-FRAME_BYTES)*8{1'b0}}, frame_reg};
localparam [7:0] KEEP_BYTES = KEEP_WIDTH[7:0];
wire [7:0] beat_offset = {{(8-BEAT_WIDTH){1'b0}}, beat_reg} * KEEP_BYTES;
wire [7:0] bytes_left = {1'b0, frame_len_reg} - beat_offset;
assign m_axis_tvalid = state_reg == FRAME_SEND;
assign m_axis_tdata = frame_padded[beat_reg * DATA_WIDTH +: DATA_WIDTH];
assign m_axis_tlast = bytes_left <= KEEP_BYTES;
assign m_axis_tkeep = m_axis_tlast ? ~({KEEP_WIDTH{1'b1}} << bytes_left) : {KEEP_WIDTH{1'b1}};
assign m_axis_tuser = time_reg;

// The headers, in wire order (first byte in bits 7:0).
wire [7:0]   tos = {dscp_reg, 2'b00};
wire [15:0]  l3_type = ipv6_reg ? 16'h86DD : 16'h0800;
wire [15:0]  udp_length = short_reg ? UDP_LENGTH_SHORT[15:0] : UDP_LENGTH[15:0];
wire [15:0]  ip_total_length = short_reg ? IP_TOTAL_LENGTH_SHORT[15:0] : IP_TOTAL_LENGTH[15:0];
wire [63:0]  udp = {16'h0000, be16(udp_length), be16(ROCE_UDP_PORT), be16(udp_sport_reg)};
wire [63:0]  udp_masked = {16'hFFFF, udp[47:0]};
wire [95:0]  bth_masked = {bth_reg[95:40], 8'hFF, bth_reg[31:0]};

// IPv4 header checksum over the ten words (checksum word 0): the sum in
// BUILD, its fold in CRC (FIX).
wire [19:0] csum_sum = {4'd0, 8'h45, tos} + {4'd0, ip_total_length} + 20'h04000 + 20'h04011
    + {4'd0, ip_dst_reg[31:16]} + {4'd0, ip_dst_reg[15:0]}
    + {4'd0, ip_src_reg[31:16]} + {4'd0, ip_src_reg[15:0]};
wire [16:0] csum_once = {1'b0, csum_sum_reg[15:0]} + {13'd0, csum_sum_reg[19:16]};
wire [15:0] ipv4_checksum = ~(csum_once[15:0] + {15'd0, csum_once[16]});

// Addresses swapped: the received packet's destination is the reply's
// source. The checksum field is written in CRC or FIX (0 until then).
wire [159:0] ipv4 = {be32(ip_src_reg[31:0]), be32(ip_dst_reg[31:0]), 16'd0,
                     8'h11, 8'h40, 16'h0040, 16'h0000, be16(ip_total_length), tos, 8'h45};
wire [159:0] ipv4_masked = {ipv4[159:96], 16'hFFFF, ipv4[79:72], 8'hFF, ipv4[63:16], 8'hFF, ipv4[7:0]};
wire [319:0] ipv6 = {be128(ip_src_reg), be128(ip_dst_reg), 8'h40, 8'h11, be16(udp_length),
                     16'h0000, {tos[3:0], 4'h0}, {4'h6, tos[7:4]}};
wire [319:0] ipv6_masked = {ipv6[319:64], 8'hFF, ipv6[55:32], 24'hFFFFFF, ipv6[7:4], 4'hF};
// Transport: UDP, BTH, extension (TRANSPORT_BYTES).
wire [TRANSPORT_BYTES*8-1:0] transport = {ext_reg, bth_reg, udp};
wire [TRANSPORT_BYTES*8-1:0] transport_masked = {ext_reg, bth_masked, udp_masked};
// The ICRC's input (SPEC.md §3.5): the masked headers, an IPv4 frame's
// shorter one padded with zeros at the front.
wire [CRC_BYTES*8-1:0] crc_data = ipv6_reg
    ? {transport_masked, ipv6_masked, 32'hFFFFFFFF, 32'd0}
    : {transport_masked, ipv4_masked, 32'hFFFFFFFF, 32'd0, 160'd0};

genvar slice;
generate
    for (slice = 0; slice < CRC_SLICES; slice = slice + 1) begin : g_icrc_slice
        // The slice's own bits, all others zero: its share of the CRC.
        crc32_lfsr #(
            .DATA_WIDTH(CRC_BYTES*8)
        ) icrc_inst (
            .state_in(32'd0),
            .data_in(crc_data & ({{(CRC_BYTES*8-CRC_SLICE_BITS){1'b0}}, {CRC_SLICE_BITS{1'b1}}} << (slice * CRC_SLICE_BITS))),
            .state_out(crc_part[slice*32 +: 32])
        );
    end
endgenerate

// MACs swapped.
wire [111:0] eth = {be16(vlan_valid_reg ? 16'h8100 : l3_type), be48(eth_dst_reg), be48(eth_src_reg)};
wire [31:0]  vlan_tag = {be16(l3_type), be16({pcp_reg, 1'b0, vlan_id_reg})};

always @* begin
    state_next = state_reg;
    frame_next = frame_reg;
    frame_len_next = frame_len_reg;
    beat_next = beat_reg;

    case (state_reg)
        FRAME_IDLE: begin
            if (s_start) begin
                state_next = s_ext_valid ? FRAME_BUILD : FRAME_EXT;
            end
        end
        FRAME_EXT: begin
            if (s_ext_valid) begin
                state_next = FRAME_BUILD;
            end
        end
        FRAME_BUILD: begin
            // A short frame's bytes past its extension are zero (ext_reg).
            frame_len_next = frame_len(short_reg, ipv6_reg, vlan_valid_reg);
            if (ipv6_reg) begin
                frame_next = vlan_valid_reg
                    ? {32'd0, transport, ipv6, vlan_tag, eth}
                    : {64'd0, transport, ipv6, eth};
            end else begin
                frame_next = vlan_valid_reg
                    ? {192'd0, transport, ipv4, vlan_tag, eth}
                    : {224'd0, transport, ipv4, eth};
            end
            state_next = FRAME_CRC;
        end
        FRAME_CRC: begin
            state_next = HAS_SHORT ? FRAME_FIX : FRAME_SEND;
        end
        FRAME_FIX: begin
            state_next = FRAME_SEND;
        end
        FRAME_SEND: begin
            if (m_axis_tready) begin
                beat_next = beat_reg + 1;
                if (m_axis_tlast) begin
                    state_next = FRAME_IDLE;
                end
            end
        end
        default: state_next = FRAME_IDLE;
    endcase

    if (fold_state) begin
        // The ICRC goes least significant byte first into the last 4 bytes.
        // The IPv4 checksum at IP header bytes 10-11.
        case ({short_reg, ipv6_reg, vlan_valid_reg})
            3'b000: frame_next[(frame_len(1'b0, 1'b0, 1'b0)-4)*8 +: 32] = ~icrc_state;
            3'b001: frame_next[(frame_len(1'b0, 1'b0, 1'b1)-4)*8 +: 32] = ~icrc_state;
            3'b010: frame_next[(frame_len(1'b0, 1'b1, 1'b0)-4)*8 +: 32] = ~icrc_state;
            3'b011: frame_next[(frame_len(1'b0, 1'b1, 1'b1)-4)*8 +: 32] = ~icrc_state;
            3'b100: frame_next[(frame_len(1'b1, 1'b0, 1'b0)-4)*8 +: 32] = ~icrc_state;
            3'b101: frame_next[(frame_len(1'b1, 1'b0, 1'b1)-4)*8 +: 32] = ~icrc_state;
            3'b110: frame_next[(frame_len(1'b1, 1'b1, 1'b0)-4)*8 +: 32] = ~icrc_state;
            default: frame_next[(frame_len(1'b1, 1'b1, 1'b1)-4)*8 +: 32] = ~icrc_state;
        endcase
        if (!ipv6_reg) begin
            frame_next[(vlan_valid_reg ? 28 : 24)*8 +: 16] = be16(ipv4_checksum);
        end
        beat_next = 0;
    end
end

always @(posedge clk) begin
    state_reg <= state_next;
    if (take) begin
        time_reg <= s_time;
        ipv6_reg <= s_reply_addr[`REPLY_ADDR_IPV6];
        vlan_valid_reg <= s_reply_addr[`REPLY_ADDR_VLAN_VALID];
        vlan_id_reg <= s_reply_addr[`REPLY_ADDR_VLAN_ID];
        eth_dst_reg <= s_reply_addr[`REPLY_ADDR_ETH_DST];
        eth_src_reg <= s_reply_addr[`REPLY_ADDR_ETH_SRC];
        ip_src_reg <= s_reply_addr[`REPLY_ADDR_IP_SRC];
        ip_dst_reg <= s_reply_addr[`REPLY_ADDR_IP_DST];
        udp_sport_reg <= s_reply_addr[`REPLY_ADDR_UDP_SPORT];
        dscp_reg <= s_dscp;
        pcp_reg <= s_pcp;
        bth_reg <= s_bth;
        short_reg <= HAS_SHORT && s_short;
    end
    if (take_ext) begin
        // The form is the request's (s_short at s_start, short_reg after).
        ext_reg <= HAS_SHORT && (take ? s_short : short_reg) ? s_ext & SHORT_EXT_MASK : s_ext;
    end
    frame_reg <= frame_next;
    if (state_reg == FRAME_BUILD) begin
        crc_part_reg <= crc_part;
        csum_sum_reg <= csum_sum;
    end
    if (state_reg == FRAME_CRC) begin
        crc_sum_reg <= crc_state;
    end
    frame_len_reg <= frame_len_next;
    beat_reg <= beat_next;

    if (rst) begin
        state_reg <= FRAME_IDLE;
    end
end

endmodule

`resetall

// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The parser's per-beat engine: the ICRC (SPEC.md §3.5) and the IPv4
 * header checksum, one beat per cycle. roce_parser.v gives where the IP and
 * UDP headers sit relative to each beat in its stage S3, the beat and where
 * the UDP datagram ends in S4, and takes the frame's results, up to and
 * including the beat in S9.
 *
 *   S4  per lane, from the IP and UDP header starts: after the IP header
 *       start, before the UDP header end, variant (taken as all ones), in
 *       an IPv4 header word; the value XORed in where the IP header starts
 *   S5  the beat's bytes as they enter the ICRC and the checksum; which
 *       lanes hold the four ICRC bytes; the residue a valid ICRC leaves if
 *       it ends in this beat
 *   S6  the CRC of the beat's bytes alone (state 0); the ICRC bytes; checksum
 *       words added in groups
 *   S7  the CRC register: the previous state advanced over a whole beat, XOR
 *       S6 (linearity; 0 on a frame's first beat); checksum sums in groups
 *   S8  the ICRC match, on the beat holding the ICRC's last byte; the
 *       checksum sum of the frame (21 bits)
 *   S9  outputs: the checksum's two folds are 0xFFFF
 *
 * ICRC: the CRC register starts at 0 and bytes before the IP header enter as
 * 0, which leaves it at 0; where the IP header starts, the register value
 * after the 8-byte 0xFF LRH stand-in (0xDEBB20E3) is XORed in, advanced over
 * the rest of the beat (CRC linearity). Bytes after the ICRC enter as 0, so
 * on the beat holding the last ICRC byte a valid frame leaves the residue
 * 0xDEBB20E3 advanced over those zero bytes. Both uses read one table,
 * ADVANCE[n] = 0xDEBB20E3 advanced over n zero bytes.
 *
 * Where a layer sits is given as u = (layer position - beat's first byte
 * position) + REL_BIAS, clamped to 0..2^U_WIDTH-1: 0 stands for "REL_BIAS
 * or more bytes before the beat", the top for "2^U_WIDTH-1-REL_BIAS or more
 * bytes after its first byte" (at least KEEP_WIDTH + REL_BIAS - 1). Every
 * test below looks at most 12 bytes before the beat and 4 after it, so the
 * clamp never changes a result.
 *
 * | port             | width      | meaning                                     |
 * |------------------|------------|---------------------------------------------|
 * | ce               | 1          | every stage advances                        |
 * | s3_is_ipv4/6     | 1          | S3: EtherType after the VLAN tags           |
 * | s3_u_l3          | U_WIDTH    | S3: IP header start                         |
 * | s3_u_l4          | U_WIDTH    | S3: UDP header start                        |
 * | s4_valid, first  | 1          | S4: a beat; the first of its frame          |
 * | s4_data          | DATA_WIDTH | S4: the beat, null lanes zeroed             |
 * | s4_u_icrc_end    | U_WIDTH    | S4: one past the ICRC: the UDP datagram end |
 * | s4_udp_len_ge    | 4          | S4: bit j-1: UDP length >= 8 + j, so the    |
 * |                  |            | j-th ICRC byte from the end lies after the  |
 * |                  |            | UDP header                                  |
 * | icrc             | 32         | S9: the ICRC bytes, first on wire in 31:24  |
 * | icrc_match       | 1          | S9: the ICRC checks                         |
 * | csum_ok          | 1          | S9: the IPv4 header words sum to 0xFFFF     |
 */
module roce_parser_icrc #(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH/8,
    parameter REL_BIAS = 16,
    parameter U_WIDTH = $clog2(KEEP_WIDTH + 2*REL_BIAS)
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire                  ce,

    input  wire                  s3_is_ipv4,
    input  wire                  s3_is_ipv6,
    input  wire [U_WIDTH-1:0]    s3_u_l3,
    input  wire [U_WIDTH-1:0]    s3_u_l4,

    input  wire                  s4_valid,
    input  wire                  s4_first,
    input  wire [DATA_WIDTH-1:0] s4_data,
    input  wire [U_WIDTH-1:0]    s4_u_icrc_end,
    input  wire [3:0]            s4_udp_len_ge,

    output reg  [31:0]           icrc,
    output reg                   icrc_match,
    output reg                   csum_ok
);

localparam [31:0] CRC_LRH_STATE = 32'hDEBB20E3;
localparam [31:0] CRC_POLY_REFLECTED = 32'hEDB88320;
localparam WORDS = KEEP_WIDTH / 2;
// Checksum words are added FAN at a time, twice, then into the frame's sum:
// pairs up to 128 bits (one adder a stage), fours above (two).
localparam FAN = WORDS >= 16 ? 4 : 2;
localparam SUMS1 = (WORDS + FAN - 1) / FAN;
localparam SUMS2 = (SUMS1 + FAN - 1) / FAN;

// ADVANCE[n]: CRC_LRH_STATE run over n zero bytes, n = 0..KEEP_WIDTH.
// Elaboration only: no run-time coverage points.
/* verilator coverage_off */
function [32*(KEEP_WIDTH+1)-1:0] crc_advance_table(input integer unused);
    reg [31:0] state;
    integer n, k;
    begin
        crc_advance_table = {32*(KEEP_WIDTH+1){1'b0}};
        state = CRC_LRH_STATE;
        for (n = 0; n <= KEEP_WIDTH; n = n + 1) begin
            crc_advance_table[n*32 +: 32] = state;
            for (k = 0; k < 8; k = k + 1) begin
                state = state[0] ? ((state >> 1) ^ CRC_POLY_REFLECTED) : (state >> 1);
            end
        end
        if (unused != 0) crc_advance_table = {32*(KEEP_WIDTH+1){1'b0}};
    end
endfunction

/* verilator coverage_on */

localparam [32*(KEEP_WIDTH+1)-1:0] ADVANCE = crc_advance_table(0);

// ADVANCE looked up by u (2^U_WIDTH entries): for the IP header starting at
// u, the LRH stand-in advanced over the rest of the beat (LANE_OFFSET 0); for
// the ICRC ending at u, the residue advanced over the zero bytes after it
// (LANE_OFFSET 1). 0 where the lane is outside the beat.
/* verilator coverage_off */
function [32*(1 << U_WIDTH)-1:0] advance_by_u(input integer lane_offset);
    integer u, lane;
    begin
        advance_by_u = {32*(1 << U_WIDTH){1'b0}};
        for (u = 0; u < (1 << U_WIDTH); u = u + 1) begin
            lane = u - REL_BIAS - lane_offset;
            if (lane >= 0 && lane < KEEP_WIDTH) begin
                advance_by_u[u*32 +: 32] = ADVANCE[(KEEP_WIDTH - lane_offset - lane)*32 +: 32];
            end
        end
    end
endfunction

/* verilator coverage_on */

localparam [32*(1 << U_WIDTH)-1:0] INJECT_BY_U = advance_by_u(0);
localparam [32*(1 << U_WIDTH)-1:0] RESIDUE_BY_U = advance_by_u(1);

/*
 * S4: per lane, what the IP and UDP header starts decide: after the IP
 * header start, before the UDP header end, variant, an IPv4 header word.
 * S5 adds what the datagram end decides, and masks the beat.
 */
wire [KEEP_WIDTH-1:0] after_l3, before_udp_end, variant_ff, variant_0f, csum_lane, before_icrc_end;
// Bits j*KEEP_WIDTH +: KEEP_WIDTH: the lane holding ICRC byte j + 1 from the end.
wire [4*KEEP_WIDTH-1:0] icrc_lane;

genvar i, j;
generate
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin : g_lane
        // u that puts a layer boundary c bytes before this lane.
        localparam [U_WIDTH-1:0] AT_0 = i + REL_BIAS;
        localparam [U_WIDTH-1:0] AT_1 = i + REL_BIAS - 1;
        localparam [U_WIDTH-1:0] AT_2 = i + REL_BIAS - 2;
        localparam [U_WIDTH-1:0] AT_3 = i + REL_BIAS - 3;
        localparam [U_WIDTH-1:0] AT_6 = i + REL_BIAS - 6;
        localparam [U_WIDTH-1:0] AT_7 = i + REL_BIAS - 7;
        localparam [U_WIDTH-1:0] AT_8 = i + REL_BIAS - 8;
        localparam [U_WIDTH-1:0] AT_10 = i + REL_BIAS - 10;
        localparam [U_WIDTH-1:0] AT_11 = i + REL_BIAS - 11;
        localparam [U_WIDTH-1:0] AT_12 = i + REL_BIAS - 12;

        assign after_l3[i] = s3_u_l3 <= AT_0;
        assign before_udp_end[i] = s3_u_l4 > AT_8;
        // Variant fields: IPv4 TOS, TTL, header checksum; IPv6 traffic class,
        // flow label, hop limit; UDP checksum; BTH byte 4 (FECN, BECN, resv6).
        assign variant_ff[i] = (s3_is_ipv4 && (s3_u_l3 == AT_1 || s3_u_l3 == AT_8 || s3_u_l3 == AT_10 || s3_u_l3 == AT_11))
            || (s3_is_ipv6 && (s3_u_l3 == AT_1 || s3_u_l3 == AT_2 || s3_u_l3 == AT_3 || s3_u_l3 == AT_7))
            || s3_u_l4 == AT_6 || s3_u_l4 == AT_7 || s3_u_l4 == AT_12;
        assign variant_0f[i] = s3_is_ipv6 && s3_u_l3 == AT_0;
        // IPv4 header words: lane pairs from the IP header start to the UDP
        // header (both even, so a word never straddles a pair).
        assign csum_lane[i] = s3_u_l3 <= AT_0 && s3_u_l4 > AT_0;

        assign before_icrc_end[i] = s4_u_icrc_end > AT_0;
        for (j = 0; j < 4; j = j + 1) begin : g_icrc_byte
            // The UDP datagram ends j + 1 bytes after this lane.
            localparam [U_WIDTH-1:0] END_AT = i + REL_BIAS + j + 1;
            assign icrc_lane[j*KEEP_WIDTH + i] = s4_udp_len_ge[j] && s4_u_icrc_end == END_AT;
        end
    end
endgenerate

reg [KEEP_WIDTH-1:0] s4_after_l3_reg, s4_before_udp_end_reg, s4_variant_ff_reg, s4_variant_0f_reg;
reg [KEEP_WIDTH-1:0] s4_csum_lane_reg;
reg [31:0]           s4_inject_reg;

always @(posedge clk) begin
    if (ce) begin
        s4_after_l3_reg <= after_l3;
        s4_before_udp_end_reg <= before_udp_end;
        s4_variant_ff_reg <= variant_ff;
        s4_variant_0f_reg <= variant_0f;
        s4_csum_lane_reg <= csum_lane;
        // XORed in where the IP header starts.
        s4_inject_reg <= INJECT_BY_U[s3_u_l3*32 +: 32];
    end
end

// u of a datagram ending with the beat's last byte.
localparam integer LAST_LANE_END = KEEP_WIDTH + REL_BIAS;
localparam [U_WIDTH-1:0] U_LAST_LANE_END = LAST_LANE_END[U_WIDTH-1:0];

// The bytes that enter the ICRC: from the IP header start to the end of the
// UDP header or of the ICRC, whichever is later; variant bytes as all ones.
reg [DATA_WIDTH-1:0] crc_data;
// Word m (lanes 2m, the high byte, and 2m+1) when in the IPv4 header.
reg [DATA_WIDTH-1:0] csum_data;
integer n;

always @* begin
    for (n = 0; n < KEEP_WIDTH; n = n + 1) begin
        crc_data[n*8 +: 8] = s4_after_l3_reg[n] && (s4_before_udp_end_reg[n] || before_icrc_end[n])
            ? s4_data[n*8 +: 8] | (s4_variant_ff_reg[n] ? 8'hFF : (s4_variant_0f_reg[n] ? 8'h0F : 8'h00))
            : 8'h00;
    end
    for (n = 0; n < KEEP_WIDTH/2; n = n + 1) begin
        csum_data[n*16 +: 16] = s4_csum_lane_reg[2*n] ? {s4_data[2*n*8 +: 8], s4_data[(2*n+1)*8 +: 8]} : 16'd0;
    end
end

reg                    s5_valid_reg = 1'b0;
reg                    s5_first_reg;
reg [DATA_WIDTH-1:0]   s5_data_reg, s5_crc_data_reg, s5_csum_data_reg;
reg [4*KEEP_WIDTH-1:0] s5_icrc_lane_reg;
reg [31:0]             s5_inject_reg;
reg [31:0]             s5_residue_reg;
reg                    s5_icrc_end_reg;

always @(posedge clk) begin
    if (ce) begin
        s5_valid_reg <= s4_valid;
        s5_first_reg <= s4_first;
        s5_data_reg <= s4_data;
        s5_crc_data_reg <= crc_data;
        s5_csum_data_reg <= csum_data;
        s5_icrc_lane_reg <= icrc_lane;
        s5_inject_reg <= s4_inject_reg;
        // Left by a valid ICRC ending in this beat.
        s5_residue_reg <= RESIDUE_BY_U[s4_u_icrc_end*32 +: 32];
        // The ICRC ends in this beat, after the UDP header.
        s5_icrc_end_reg <= s4_udp_len_ge[0] && s4_u_icrc_end > REL_BIAS[U_WIDTH-1:0]
            && s4_u_icrc_end <= U_LAST_LANE_END;
    end
    if (rst) begin
        s5_valid_reg <= 1'b0;
    end
end

/*
 * S6: the beat's own CRC, the ICRC bytes, checksum words in groups.
 */
reg [31:0]             icrc_reg;
reg [31:0]             icrc_next;
reg [31:0]             icrc_beat;
reg [3:0]              icrc_hit;
reg [16*FAN*SUMS1-1:0] csum_words;
reg [20*SUMS1-1:0]     csum_sums1;
integer k;

always @* begin
    // The ICRC as on the wire, first byte in 31:24. Each of its bytes is in
    // one lane at most (icrc_lane is one-hot per byte), so a lane's byte is
    // taken by AND-OR, a tree of log6(KEEP_WIDTH) LUT levels, not a chain
    // of KEEP_WIDTH priority multiplexers.
    icrc_beat = 32'd0;
    for (k = 0; k < 4; k = k + 1) begin
        icrc_hit[k] = |s5_icrc_lane_reg[k*KEEP_WIDTH +: KEEP_WIDTH];
        for (n = 0; n < KEEP_WIDTH; n = n + 1) begin
            icrc_beat[k*8 +: 8] = icrc_beat[k*8 +: 8] | (s5_icrc_lane_reg[k*KEEP_WIDTH + n] ? s5_data_reg[n*8 +: 8] : 8'd0);
        end
        icrc_next[k*8 +: 8] = icrc_hit[k] ? icrc_beat[k*8 +: 8] : (s5_first_reg ? 8'd0 : icrc_reg[k*8 +: 8]);
    end
    // Zero past the beat's words.
    csum_words = {16*FAN*SUMS1{1'b0}};
    csum_words[0 +: DATA_WIDTH] = s5_csum_data_reg;
    for (n = 0; n < SUMS1; n = n + 1) begin
        csum_sums1[n*20 +: 20] = group_sum({4'd0, csum_words[(FAN*n)*16 +: 16]},
            {4'd0, csum_words[(FAN*n + 1)*16 +: 16]}, {4'd0, csum_words[(FAN*n + FAN/2)*16 +: 16]},
            {4'd0, csum_words[(FAN*n + FAN-1)*16 +: 16]});
    end
end

// The sum of one group: a + b for pairs, (a + b) + (c + d) for fours (a
// balanced tree). For pairs c and d repeat a and b and go unused.
function [19:0] group_sum(input [19:0] a, input [19:0] b, input [19:0] c, input [19:0] d);
    group_sum = FAN == 4 ? (a + b) + (c + d) : a + b;
endfunction

wire [31:0] crc_of_data;

crc32_lfsr #(
    .DATA_WIDTH(DATA_WIDTH)
) crc_data_inst (
    .state_in(32'd0),
    .data_in(s5_crc_data_reg),
    .state_out(crc_of_data)
);

reg                s6_valid_reg = 1'b0;
reg                s6_first_reg;
reg [31:0]         s6_beat_crc_reg;
reg [31:0]         s6_residue_reg;
reg                s6_icrc_end_reg;
reg [20*SUMS1-1:0] s6_csum_sums_reg;

always @(posedge clk) begin
    if (ce) begin
        s6_valid_reg <= s5_valid_reg;
        s6_first_reg <= s5_first_reg;
        s6_beat_crc_reg <= crc_of_data ^ s5_inject_reg;
        s6_residue_reg <= s5_residue_reg;
        s6_icrc_end_reg <= s5_icrc_end_reg;
        s6_csum_sums_reg <= csum_sums1;
        if (s5_valid_reg) begin
            icrc_reg <= icrc_next;
        end
    end
    if (rst) begin
        s6_valid_reg <= 1'b0;
    end
end

/*
 * S7: the CRC register; checksum sums in fours.
 */
reg [31:0]         crc_state_reg;
wire [31:0]        crc_of_state;
reg [20*FAN*SUMS2-1:0] csum_sums1_wide;
reg [20*SUMS2-1:0] csum_sums2;

crc32_lfsr #(
    .DATA_WIDTH(DATA_WIDTH)
) crc_state_inst (
    .state_in(s6_first_reg ? 32'd0 : crc_state_reg),
    .data_in({DATA_WIDTH{1'b0}}),
    .state_out(crc_of_state)
);

always @* begin
    csum_sums1_wide = {20*FAN*SUMS2{1'b0}};
    for (n = 0; n < SUMS1; n = n + 1) begin
        csum_sums1_wide[n*20 +: 20] = s6_csum_sums_reg[n*20 +: 20];
    end
    for (n = 0; n < SUMS2; n = n + 1) begin
        csum_sums2[n*20 +: 20] = group_sum(csum_sums1_wide[(FAN*n)*20 +: 20], csum_sums1_wide[(FAN*n + 1)*20 +: 20],
            csum_sums1_wide[(FAN*n + FAN/2)*20 +: 20], csum_sums1_wide[(FAN*n + FAN-1)*20 +: 20]);
    end
end

reg                s7_valid_reg = 1'b0;
reg                s7_first_reg;
reg [31:0]         s7_residue_reg;
reg                s7_icrc_end_reg;
reg [20*SUMS2-1:0] s7_csum_sums_reg;
reg [31:0]         s7_icrc_reg;

always @(posedge clk) begin
    if (ce) begin
        s7_valid_reg <= s6_valid_reg;
        s7_first_reg <= s6_first_reg;
        if (s6_valid_reg) begin
            crc_state_reg <= crc_of_state ^ s6_beat_crc_reg;
        end
        s7_residue_reg <= s6_residue_reg;
        s7_icrc_end_reg <= s6_icrc_end_reg;
        s7_csum_sums_reg <= csum_sums2;
        s7_icrc_reg <= icrc_reg;
    end
    if (rst) begin
        s7_valid_reg <= 1'b0;
    end
end

/*
 * S8: the ICRC match; the frame's checksum sum.
 */
// At most 30 header words (IHL 15), so 21 bits never overflow.
reg [20:0] csum_beat;

always @* begin
    csum_beat = 21'd0;
    for (n = 0; n < SUMS2; n = n + 1) begin
        csum_beat = csum_beat + {1'b0, s7_csum_sums_reg[n*20 +: 20]};
    end
end

reg        match_reg;
reg [20:0] csum_sum_reg;
reg [31:0] s8_icrc_reg;

always @(posedge clk) begin
    if (ce) begin
        if (s7_valid_reg) begin
            if (s7_icrc_end_reg) begin
                match_reg <= crc_state_reg == s7_residue_reg;
            end else if (s7_first_reg) begin
                match_reg <= 1'b0;
            end
            csum_sum_reg <= (s7_first_reg ? 21'd0 : csum_sum_reg) + csum_beat;
        end
        s8_icrc_reg <= s7_icrc_reg;
    end
end

/*
 * S9: outputs. The ones' complement sum folds twice (RFC 1071); with at most
 * 31 in the carry bits, the folds give 0xFFFF exactly when the low 16 bits
 * plus the carry bits are 0xFFFF, that is, when the low 16 bits are 0xFFFF
 * minus the carry bits: ones above bit 4 and the carry bits' complement below.
 */
always @(posedge clk) begin
    if (ce) begin
        icrc <= s8_icrc_reg;
        icrc_match <= match_reg;
        csum_ok <= csum_sum_reg[15:5] == 11'h7FF && csum_sum_reg[4:0] == ~csum_sum_reg[20:16];
    end
end

endmodule

`resetall

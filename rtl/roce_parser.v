// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * RoCEv2 header parser: AXI-Stream frames in, one metadata record per frame
 * out, in frame order. Contract and error classes: SPEC.md "Parser".
 *
 * Pipeline (global stall: every stage advances when the output register is
 * empty or taken, so s_axis_tready = !m_meta_valid || m_meta_ready):
 *   S1  input register; merges the beat into a HDR_BYTES header window.
 *   S2  aligns the IP and UDP headers out of the window, masks the ICRC
 *       variant fields of the beat and runs the full-width CRC; on the last
 *       beat hands the frame to S3.
 *   S3  checks layers outermost first and fills the record register.
 * One beat per cycle, no bubble between frames; latency 3 cycles from the
 * last beat accepted to m_meta_valid.
 *
 * ICRC: the CRC register starts at 0 and bytes before the IP header enter as
 * 0, which leaves it at 0; where the IP header starts, the register value
 * after the 8-byte 0xFF LRH stand-in (0xDEBB20E3) is XORed in, advanced over
 * the rest of the beat (CRC linearity). Bytes after the ICRC enter as 0, so
 * on the beat holding the last ICRC byte a valid frame leaves the residue
 * 0xDEBB20E3 advanced over those zero bytes. Both uses read one table,
 * ADVANCE[n] = 0xDEBB20E3 advanced over n zero bytes.
 *
 * | port                 | width      | meaning                                 |
 * |----------------------|------------|-----------------------------------------|
 * | s_axis_tdata         | DATA_WIDTH | frame bytes, byte 0 in bits 7:0          |
 * | s_axis_tkeep         | KEEP_WIDTH | all ones but on tlast: contiguous from 0 |
 * | s_axis_tlast         | 1          | last beat of the frame                   |
 * | s_axis_tuser         | 1          | on tlast: MAC bad frame (error mac_error)|
 * | m_meta_valid/ready   | 1          | one record per frame                     |
 * | m_meta_frame_class         | 2          | 0 roce, 1 non_roce, 2 error              |
 * | m_meta_error         | 5          | 0 none, else the error class code        |
 * | m_meta_frame_len     | 17         | frame bytes, saturating at 0x1FFFF       |
 * | m_meta_eth_valid     | 1          | eth_type, vlan_* fields hold             |
 * | m_meta_vlan_count    | 2          | VLAN tags stripped (0..2)                |
 * | m_meta_vlan_pcp/id   | 3/12       | outer tag (when vlan_count > 0)          |
 * | m_meta_eth_type      | 16         | EtherType after the tags                 |
 * | m_meta_eth_dst/src   | 48/48      | MACs, first wire byte in 47:40           |
 * | m_meta_ip_valid      | 1          | ip_version, dscp, ecn, ip_src/dst hold   |
 * | m_meta_ip_src/dst    | 128/128    | IPs, first wire byte in 127:120; IPv4    |
 * |                      |            | (by EtherType) in 31:0                   |
 * | m_meta_udp_valid     | 1          | udp_sport, udp_dport hold                |
 * | m_meta_bth_valid     | 1          | every BTH field holds                    |
 * | m_meta_<ext>_valid   | 1          | that extension header's fields hold      |
 * | m_meta_icrc_valid    | 1          | icrc, icrc_ok, payload_len hold          |
 * | m_meta_icrc          | 32         | the 4 ICRC bytes, first on wire in 31:24 |
 * | m_meta_cnp_valid     | 1          | a CNP whose reserved bytes carry the     |
 * |                      |            | MetaRoCE tag 4D 01 (SPEC.md 6.3)         |
 * | m_meta_cnp_extent    | 16         | its CE extent, Q1.15                     |
 */
module roce_parser #(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH/8,
    parameter [15:0] ROCE_UDP_PORT = 16'd4791
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [DATA_WIDTH-1:0]  s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]  s_axis_tkeep,
    input  wire                   s_axis_tvalid,
    output wire                   s_axis_tready,
    input  wire                   s_axis_tlast,
    input  wire                   s_axis_tuser,

    output wire                   m_meta_valid,
    input  wire                   m_meta_ready,
    output wire [1:0]             m_meta_frame_class,
    output wire [4:0]             m_meta_error,
    output wire [16:0]            m_meta_frame_len,
    output wire                   m_meta_eth_valid,
    output wire [1:0]             m_meta_vlan_count,
    output wire [2:0]             m_meta_vlan_pcp,
    output wire [11:0]            m_meta_vlan_id,
    output wire [15:0]            m_meta_eth_type,
    output wire [47:0]            m_meta_eth_dst,
    output wire [47:0]            m_meta_eth_src,
    output wire                   m_meta_ip_valid,
    output wire [3:0]             m_meta_ip_version,
    output wire [5:0]             m_meta_dscp,
    output wire [1:0]             m_meta_ecn,
    output wire [127:0]           m_meta_ip_src,
    output wire [127:0]           m_meta_ip_dst,
    output wire                   m_meta_udp_valid,
    output wire [15:0]            m_meta_udp_sport,
    output wire [15:0]            m_meta_udp_dport,
    output wire                   m_meta_bth_valid,
    output wire [7:0]             m_meta_opcode,
    output wire                   m_meta_se,
    output wire                   m_meta_mig_req,
    output wire [1:0]             m_meta_pad_cnt,
    output wire [3:0]             m_meta_tver,
    output wire [15:0]            m_meta_pkey,
    output wire                   m_meta_fecn,
    output wire                   m_meta_becn,
    output wire [23:0]            m_meta_dest_qp,
    output wire                   m_meta_ack_req,
    output wire [23:0]            m_meta_psn,
    output wire                   m_meta_icrc_valid,
    output wire [31:0]            m_meta_icrc,
    output wire                   m_meta_icrc_ok,
    output wire [15:0]            m_meta_payload_len,
    output wire                   m_meta_reth_valid,
    output wire [63:0]            m_meta_reth_va,
    output wire [31:0]            m_meta_reth_rkey,
    output wire [31:0]            m_meta_reth_dma_len,
    output wire                   m_meta_aeth_valid,
    output wire [7:0]             m_meta_aeth_syndrome,
    output wire [23:0]            m_meta_aeth_msn,
    output wire                   m_meta_imm_valid,
    output wire [31:0]            m_meta_imm_data,
    output wire                   m_meta_ieth_valid,
    output wire [31:0]            m_meta_ieth_rkey,
    output wire                   m_meta_deth_valid,
    output wire [31:0]            m_meta_deth_qkey,
    output wire [23:0]            m_meta_deth_src_qp,
    output wire                   m_meta_atomic_valid,
    output wire [63:0]            m_meta_atomic_va,
    output wire [31:0]            m_meta_atomic_rkey,
    output wire [63:0]            m_meta_atomic_swap_add,
    output wire [63:0]            m_meta_atomic_compare,
    output wire                   m_meta_atomic_ack_valid,
    output wire [63:0]            m_meta_atomic_ack_orig,
    output wire                   m_meta_cnp_valid,
    output wire [15:0]            m_meta_cnp_extent
);

// Header window: 2 VLAN tags + IPv4 with 40 B options + UDP + BTH + the
// longest extension header (AtomicETH) = 22 + 60 + 8 + 12 + 28 bytes.
localparam HDR_BYTES = 130;
localparam HDR_BEATS = (HDR_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
// Bytes from the IP header on that S3 reads, and from the UDP header on.
localparam L3_BYTES = 108;
localparam L4_BYTES = 48;
localparam LEN_WIDTH = 17;
localparam [LEN_WIDTH-1:0] LEN_MAX = {LEN_WIDTH{1'b1}};
// Frame positions carry one more bit so a saturated beat base plus a lane
// index cannot wrap.
localparam POS_WIDTH = LEN_WIDTH + 1;
localparam BEAT_IDX_WIDTH = $clog2(HDR_BEATS + 1);
localparam KEEP_COUNT_WIDTH = $clog2(KEEP_WIDTH + 1);

localparam [31:0] CRC_LRH_STATE = 32'hDEBB20E3;
localparam [31:0] CRC_POLY_REFLECTED = 32'hEDB88320;

// Record classes, error codes (priority order), opcodes: shared with the golden model.
`include "metaroce_defs.vh"

// Elaboration-time parameter checks (Verilator USERERROR, Yosys ERROR).
generate
    if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || (DATA_WIDTH & (DATA_WIDTH - 1)) != 0) begin : g_bad_data_width
        $error("roce_parser: DATA_WIDTH must be 64, 128, 256 or 512 (got %0d)", DATA_WIDTH);
    end
    if (KEEP_WIDTH * 8 != DATA_WIDTH) begin : g_bad_keep_width
        $error("roce_parser: KEEP_WIDTH must be DATA_WIDTH/8");
    end
endgenerate

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

wire ce = !m_meta_valid || m_meta_ready;
assign s_axis_tready = ce;

/*
 * S1: input register and header window.
 */
reg                    s1_valid_reg = 1'b0;
reg [DATA_WIDTH-1:0]   s1_data_reg;
reg                    s1_last_reg;
reg                    s1_user_reg;
reg                    s1_first_reg;
reg [LEN_WIDTH-1:0]    s1_base_reg;
reg [LEN_WIDTH-1:0]    s1_len_reg;
reg [HDR_BYTES*8-1:0]  s1_hdr_reg;
reg                    in_frame_reg = 1'b0;
reg [BEAT_IDX_WIDTH-1:0] beat_idx_reg;

reg [DATA_WIDTH-1:0]     in_data_masked;
reg [KEEP_COUNT_WIDTH-1:0] in_keep_count;
reg [HDR_BYTES*8-1:0]    hdr_next;
reg [LEN_WIDTH-1:0]      in_base;
reg [LEN_WIDTH:0]        in_len_sum;
wire [31:0]              in_beat_idx = in_frame_reg ? {{(32-BEAT_IDX_WIDTH){1'b0}}, beat_idx_reg} : 32'd0;
integer i;

always @* begin
    // Null bytes are zeroed so that nothing past the frame reaches the CRC
    // or the header window.
    in_keep_count = {KEEP_COUNT_WIDTH{1'b0}};
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        in_data_masked[i*8 +: 8] = s_axis_tkeep[i] ? s_axis_tdata[i*8 +: 8] : 8'h00;
        in_keep_count = in_keep_count + {{(KEEP_COUNT_WIDTH-1){1'b0}}, s_axis_tkeep[i]};
    end
    in_base = in_frame_reg ? s1_len_reg : {LEN_WIDTH{1'b0}};
    in_len_sum = {1'b0, in_base} + {{(LEN_WIDTH+1-KEEP_COUNT_WIDTH){1'b0}}, in_keep_count};

    hdr_next = in_frame_reg ? s1_hdr_reg : {HDR_BYTES*8{1'b0}};
    for (i = 0; i < HDR_BYTES; i = i + 1) begin
        if (in_beat_idx == i / KEEP_WIDTH) begin
            hdr_next[i*8 +: 8] = in_data_masked[(i % KEEP_WIDTH)*8 +: 8];
        end
    end
end

always @(posedge clk) begin
    if (ce) begin
        s1_valid_reg <= s_axis_tvalid;
        if (s_axis_tvalid) begin
            s1_data_reg <= in_data_masked;
            s1_last_reg <= s_axis_tlast;
            s1_user_reg <= s_axis_tuser;
            s1_first_reg <= !in_frame_reg;
            s1_base_reg <= in_base;
            s1_len_reg <= in_len_sum[LEN_WIDTH] ? LEN_MAX : in_len_sum[LEN_WIDTH-1:0];
            s1_hdr_reg <= hdr_next;
            in_frame_reg <= !s_axis_tlast;
            if (!in_frame_reg) begin
                beat_idx_reg <= 1;
            end else if (beat_idx_reg != HDR_BEATS[BEAT_IDX_WIDTH-1:0]) begin
                beat_idx_reg <= beat_idx_reg + 1;
            end
        end
    end
    if (rst) begin
        s1_valid_reg <= 1'b0;
        in_frame_reg <= 1'b0;
    end
end

/*
 * S2: align, mask, CRC.
 */
function [7:0] hdr_byte(input [HDR_BYTES*8-1:0] hdr, input integer index);
    hdr_byte = hdr[index*8 +: 8];
endfunction

wire [15:0] type_at_12 = {hdr_byte(s1_hdr_reg, 12), hdr_byte(s1_hdr_reg, 13)};
wire [15:0] type_at_16 = {hdr_byte(s1_hdr_reg, 16), hdr_byte(s1_hdr_reg, 17)};
wire [15:0] type_at_20 = {hdr_byte(s1_hdr_reg, 20), hdr_byte(s1_hdr_reg, 21)};
wire tag0 = type_at_12 == 16'h8100 || type_at_12 == 16'h88A8;
wire tag1 = tag0 && (type_at_16 == 16'h8100 || type_at_16 == 16'h88A8);
wire [15:0] eth_type = tag1 ? type_at_20 : (tag0 ? type_at_16 : type_at_12);
wire [1:0] vlan_count = {tag1, tag0 && !tag1};
// Outer tag TCI in bytes 14-15: PCP 15:13, DEI 12 (not reported), VID 11:0.
wire [2:0]  outer_pcp = s1_hdr_reg[14*8+5 +: 3];
wire [11:0] outer_vid = {s1_hdr_reg[14*8 +: 4], s1_hdr_reg[15*8 +: 8]};
wire is_ipv4 = eth_type == 16'h0800;
wire is_ipv6 = eth_type == 16'h86DD;
wire [4:0] l3_off = 5'd14 + {1'b0, vlan_count, 2'b00};

reg [L3_BYTES*8-1:0] l3_win;
reg [L4_BYTES*8-1:0] l4_win;
reg [5:0]            ip_hdr_len;

always @* begin
    case (vlan_count)
        2'd0: l3_win = s1_hdr_reg[14*8 +: L3_BYTES*8];
        2'd1: l3_win = s1_hdr_reg[18*8 +: L3_BYTES*8];
        default: l3_win = s1_hdr_reg[22*8 +: L3_BYTES*8];
    endcase
    // IHL below 5 is an error S3 reports; any alignment will do for it.
    ip_hdr_len = is_ipv6 ? 6'd40 : {l3_win[3:0], 2'b00};
    l4_win = l3_win[0 +: L4_BYTES*8];
    for (i = 1; i < 16; i = i + 1) begin
        if ({26'd0, ip_hdr_len} == i*4) l4_win = l3_win[i*32 +: L4_BYTES*8];
    end
end

wire [POS_WIDTH-1:0] l3_pos = {{(POS_WIDTH-5){1'b0}}, l3_off};
wire [POS_WIDTH-1:0] l4_pos = l3_pos + {{(POS_WIDTH-6){1'b0}}, ip_hdr_len};
wire [15:0] udp_len = {l4_win[4*8 +: 8], l4_win[5*8 +: 8]};
// One past the last ICRC byte: the end of the UDP datagram. udp_len is
// read from the window, so it holds only on beats at or after the UDP
// header; the ICRC region always extends past the UDP header, so before it
// the region end is not consulted.
wire [POS_WIDTH-1:0] icrc_end = l4_pos + {{(POS_WIDTH-16){1'b0}}, udp_len};
wire [POS_WIDTH-1:0] udp_end = l4_pos + 8;
wire [POS_WIDTH-1:0] beat_pos = {1'b0, s1_base_reg};

reg [DATA_WIDTH-1:0] crc_data;
reg [31:0]           crc_inject;
reg [31:0]           crc_reg;
wire [31:0]          crc_out;
reg                  icrc_match_reg;
reg                  icrc_match_next;
reg [31:0]           icrc_reg;
reg [31:0]           icrc_next;
reg [POS_WIDTH-1:0]  pos;
reg [7:0]            variant;

crc32_lfsr #(
    .DATA_WIDTH(DATA_WIDTH)
) crc_inst (
    .state_in(s1_first_reg ? 32'd0 : crc_reg),
    .data_in(crc_data),
    .state_out(crc_out)
);

always @* begin
    crc_inject = 32'd0;
    icrc_next = s1_first_reg ? 32'd0 : icrc_reg;
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        pos = beat_pos + i[POS_WIDTH-1:0];
        variant = 8'h00;
        if (is_ipv4 && (pos == l3_pos + 1 || pos == l3_pos + 8 || pos == l3_pos + 10 || pos == l3_pos + 11)) begin
            variant = 8'hFF; // TOS, TTL, header checksum
        end
        if (is_ipv6 && pos == l3_pos) begin
            variant = 8'h0F; // traffic class, high nibble
        end
        if (is_ipv6 && (pos == l3_pos + 1 || pos == l3_pos + 2 || pos == l3_pos + 3 || pos == l3_pos + 7)) begin
            variant = 8'hFF; // traffic class, flow label, hop limit
        end
        if (pos == l4_pos + 6 || pos == l4_pos + 7 || pos == l4_pos + 12) begin
            variant = 8'hFF; // UDP checksum, BTH FECN/BECN/reserved
        end
        if (pos >= l3_pos && (pos < udp_end || pos < icrc_end)) begin
            crc_data[i*8 +: 8] = s1_data_reg[i*8 +: 8] | variant;
        end else begin
            crc_data[i*8 +: 8] = 8'h00;
        end
        if (pos == l3_pos) begin
            crc_inject = ADVANCE[(KEEP_WIDTH - i)*32 +: 32];
        end
        if (pos >= udp_end) begin
            if (pos == icrc_end - 4) icrc_next[31:24] = s1_data_reg[i*8 +: 8];
            if (pos == icrc_end - 3) icrc_next[23:16] = s1_data_reg[i*8 +: 8];
            if (pos == icrc_end - 2) icrc_next[15:8] = s1_data_reg[i*8 +: 8];
            if (pos == icrc_end - 1) icrc_next[7:0] = s1_data_reg[i*8 +: 8];
        end
    end

end

wire [31:0] crc_beat_state = crc_out ^ crc_inject;

always @* begin
    icrc_match_next = s1_first_reg ? 1'b0 : icrc_match_reg;
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        // The last ICRC byte is lane i: KEEP_WIDTH-1-i zero bytes follow it.
        if (beat_pos + i[POS_WIDTH-1:0] >= udp_end && beat_pos + i[POS_WIDTH-1:0] == icrc_end - 1) begin
            icrc_match_next = crc_beat_state == ADVANCE[(KEEP_WIDTH - 1 - i)*32 +: 32];
        end
    end
end

// S3 registers: what S2 hands over on a frame's last beat.
reg                   s3_valid_reg = 1'b0;
reg                   s3_user_reg;
reg [LEN_WIDTH-1:0]   s3_len_reg;
reg [1:0]             s3_vlan_count_reg;
reg [2:0]             s3_outer_pcp_reg;
reg [11:0]            s3_outer_vid_reg;
reg [15:0]            s3_eth_type_reg;
reg [L3_BYTES*8-1:0]  s3_l3_reg;
reg [L4_BYTES*8-1:0]  s3_l4_reg;
reg [31:0]            s3_icrc_reg;
reg                   s3_icrc_match_reg;
reg [95:0]            s3_macs_reg;

always @(posedge clk) begin
    if (ce) begin
        if (s1_valid_reg) begin
            crc_reg <= crc_beat_state;
            icrc_reg <= icrc_next;
            icrc_match_reg <= icrc_match_next;
        end
        s3_valid_reg <= s1_valid_reg && s1_last_reg;
        if (s1_valid_reg && s1_last_reg) begin
            s3_user_reg <= s1_user_reg;
            s3_len_reg <= s1_len_reg;
            s3_vlan_count_reg <= vlan_count;
            s3_outer_pcp_reg <= outer_pcp;
            s3_outer_vid_reg <= outer_vid;
            s3_eth_type_reg <= eth_type;
            s3_l3_reg <= l3_win;
            s3_l4_reg <= l4_win;
            s3_icrc_reg <= icrc_next;
            s3_icrc_match_reg <= icrc_match_next;
            s3_macs_reg <= s1_hdr_reg[0 +: 96];
        end
    end
    if (rst) begin
        s3_valid_reg <= 1'b0;
    end
end

/*
 * S3: layer checks, outermost first; the first failing check names the error.
 */
function [7:0] l3_byte(input integer index);
    l3_byte = s3_l3_reg[index*8 +: 8];
endfunction
function [7:0] l4_byte(input integer index);
    l4_byte = s3_l4_reg[index*8 +: 8];
endfunction

wire       s3_is_ipv4 = s3_eth_type_reg == 16'h0800;
wire       s3_is_ipv6 = s3_eth_type_reg == 16'h86DD;
wire [4:0] s3_l3_off = 5'd14 + {1'b0, s3_vlan_count_reg, 2'b00};
wire       s3_truncated_eth = s3_len_reg < {{(LEN_WIDTH-5){1'b0}}, s3_l3_off};
wire [LEN_WIDTH-1:0] l3_avail = s3_len_reg - {{(LEN_WIDTH-5){1'b0}}, s3_l3_off};

wire [7:0]  l3_byte0 = l3_byte(0);
wire [7:0]  l3_byte1 = l3_byte(1);
wire [3:0]  ip_version = l3_byte0[7:4];
wire [3:0]  ihl = l3_byte0[3:0];
wire [5:0]  ipv4_hdr_len = {ihl, 2'b00};
wire [7:0]  traffic_class = s3_is_ipv6 ? {l3_byte0[3:0], l3_byte1[7:4]} : l3_byte1;
wire [15:0] ipv4_total_len = {l3_byte(2), l3_byte(3)};
wire        ipv4_more_fragments = s3_l3_reg[6*8+5];
wire [12:0] ipv4_frag_offset = {s3_l3_reg[6*8 +: 5], l3_byte(7)};
wire [7:0]  ipv4_protocol = l3_byte(9);
wire [15:0] ipv6_payload_len = {l3_byte(4), l3_byte(5)};
wire [7:0]  ipv6_next_header = l3_byte(6);
wire        ipv6_next_is_ext = ipv6_next_header == 8'd0 || ipv6_next_header == 8'd43
    || ipv6_next_header == 8'd44 || ipv6_next_header == 8'd50 || ipv6_next_header == 8'd51
    || ipv6_next_header == 8'd60 || ipv6_next_header == 8'd135 || ipv6_next_header == 8'd139
    || ipv6_next_header == 8'd140 || ipv6_next_header == 8'd253 || ipv6_next_header == 8'd254;
wire [16:0] ip_total_len = s3_is_ipv6 ? 17'd40 + {1'b0, ipv6_payload_len} : {1'b0, ipv4_total_len};
wire [16:0] l4_len = s3_is_ipv6 ? {1'b0, ipv6_payload_len} : {1'b0, ipv4_total_len} - {11'd0, ipv4_hdr_len};

// IPv4 header checksum: ones' complement sum over IHL words, two folds.
reg [20:0] csum_sum;
reg [16:0] csum_fold;
reg [15:0] csum_final;
always @* begin
    csum_sum = 21'd0;
    for (i = 0; i < 30; i = i + 1) begin
        if (i < ihl * 2) csum_sum = csum_sum + {5'd0, l3_byte(2*i), l3_byte(2*i + 1)};
    end
    csum_fold = {1'b0, csum_sum[15:0]} + {12'd0, csum_sum[20:16]};
    csum_final = csum_fold[15:0] + {15'd0, csum_fold[16]};
end
wire ipv4_checksum_ok = csum_final == 16'hFFFF;

wire [15:0] udp_sport = {l4_byte(0), l4_byte(1)};
wire [15:0] udp_dport = {l4_byte(2), l4_byte(3)};
wire [15:0] s3_udp_len = {l4_byte(4), l4_byte(5)};
// BTH at l4 + 8, extension headers at l4 + 20.
wire [7:0]  opcode = l4_byte(8);
wire [1:0]  pad_cnt = s3_l4_reg[9*8+4 +: 2];
wire [3:0]  tver = s3_l4_reg[9*8 +: 4];

wire       op_valid, op_reth, op_atomic, op_aeth, op_atomic_ack, op_deth, op_imm, op_ieth;
wire [4:0] op_ext_len, op_imm_offset;

roce_opcode_decode opcode_decode_inst (
    .opcode(opcode),
    .valid(op_valid),
    .reth(op_reth),
    .atomic(op_atomic),
    .aeth(op_aeth),
    .atomic_ack(op_atomic_ack),
    .deth(op_deth),
    .imm(op_imm),
    .ieth(op_ieth),
    .ext_len(op_ext_len),
    .imm_offset(op_imm_offset)
);

// Bytes after the BTH, after the extension headers, and the trailer needed.
wire [15:0] after_bth_len = s3_udp_len - 16'd20;
wire [15:0] body_len = after_bth_len - {11'd0, op_ext_len};
wire [15:0] trailer_len = {14'd0, pad_cnt} + 16'd4;

reg [4:0] error;
reg       non_roce;
reg       eth_valid, ip_valid, udp_valid, bth_valid, ext_valid, icrc_valid;

always @* begin
    error = ERR_NONE;
    non_roce = 1'b0;
    eth_valid = 1'b0;
    ip_valid = 1'b0;
    udp_valid = 1'b0;
    bth_valid = 1'b0;
    ext_valid = 1'b0;
    icrc_valid = 1'b0;

    if (s3_user_reg) begin
        error = ERR_MAC_ERROR;
    end else if (s3_truncated_eth) begin
        error = ERR_TRUNCATED_ETH;
    end else begin
        eth_valid = 1'b1;
        if (!s3_is_ipv4 && !s3_is_ipv6) begin
            non_roce = 1'b1;
        end else if (l3_avail < (s3_is_ipv6 ? 17'd40 : 17'd20)) begin
            error = ERR_TRUNCATED_IP;
        end else begin
            ip_valid = 1'b1;
            if (ip_version != (s3_is_ipv6 ? 4'd6 : 4'd4)) begin
                error = ERR_BAD_IP_VERSION;
            end else if (s3_is_ipv4 && ihl < 4'd5) begin
                error = ERR_BAD_IHL;
            end else if (s3_is_ipv4 && l3_avail < {11'd0, ipv4_hdr_len}) begin
                error = ERR_TRUNCATED_IP;
            end else if (s3_is_ipv4 && !ipv4_checksum_ok) begin
                error = ERR_BAD_IPV4_CHECKSUM;
            end else if (s3_is_ipv4 && ipv4_total_len < {10'd0, ipv4_hdr_len}) begin
                error = ERR_BAD_IP_LENGTH;
            end else if (ip_total_len > l3_avail) begin
                error = ERR_IP_LENGTH_EXCEEDS_FRAME;
            end else if (s3_is_ipv4 && (ipv4_more_fragments || ipv4_frag_offset != 13'd0)) begin
                error = ERR_IP_FRAGMENT;
            end else if (s3_is_ipv6 && ipv6_next_is_ext) begin
                error = ERR_IPV6_EXT_HEADER;
            end else if ((s3_is_ipv6 ? ipv6_next_header : ipv4_protocol) != 8'd17) begin
                non_roce = 1'b1;
            end else if (l4_len < 17'd8) begin
                error = ERR_TRUNCATED_UDP;
            end else begin
                udp_valid = 1'b1;
                if (udp_dport != ROCE_UDP_PORT) begin
                    non_roce = 1'b1;
                end else if ({1'b0, s3_udp_len} != l4_len) begin
                    error = ERR_UDP_LENGTH_MISMATCH;
                end else if (s3_udp_len < 16'd20) begin
                    error = ERR_TRUNCATED_BTH;
                end else begin
                    bth_valid = 1'b1;
                    if (tver != 4'd0) begin
                        error = ERR_BAD_TVER;
                    end else if (!op_valid) begin
                        error = ERR_RESERVED_OPCODE;
                    end else if (after_bth_len < {11'd0, op_ext_len}) begin
                        error = ERR_TRUNCATED_EXT;
                    end else begin
                        ext_valid = 1'b1;
                        if (body_len < trailer_len) begin
                            error = ERR_TOO_SHORT_FOR_ICRC;
                        end else begin
                            icrc_valid = 1'b1;
                            if (!s3_icrc_match_reg) error = ERR_BAD_ICRC;
                        end
                    end
                end
            end
        end
    end
end

/*
 * Output register.
 */
reg         m_valid_reg = 1'b0;
reg [1:0]   m_class_reg;
reg [4:0]   m_error_reg;
reg [16:0]  m_frame_len_reg;
reg         m_eth_valid_reg, m_ip_valid_reg, m_udp_valid_reg, m_bth_valid_reg, m_icrc_valid_reg;
reg [1:0]   m_vlan_count_reg;
reg [2:0]   m_vlan_pcp_reg;
reg [11:0]  m_vlan_id_reg;
reg [15:0]  m_eth_type_reg;
reg [3:0]   m_ip_version_reg;
reg [7:0]   m_traffic_class_reg;
reg [31:0]  m_udp_ports_reg;
// The BTH as on the wire; its reserved bits are not reported.
/* verilator lint_off UNUSEDSIGNAL */
reg [95:0]  m_bth_reg;
/* verilator lint_on UNUSEDSIGNAL */
reg [31:0]  m_icrc_reg;
reg         m_icrc_ok_reg;
reg [15:0]  m_payload_len_reg;
reg [6:0]   m_ext_valid_reg;
reg [223:0] m_ext_reg;
reg [4:0]   m_imm_offset_reg;
reg [95:0]  m_macs_reg;
// IP header bytes 8-39: the IPv6 addresses, or (bytes 12-19) the IPv4 ones.
reg [255:0] m_ip_addrs_reg;
reg         m_is_ipv6_reg;
reg         m_cnp_valid_reg;

always @(posedge clk) begin
    if (ce) begin
        m_valid_reg <= s3_valid_reg;
        if (s3_valid_reg) begin
            m_class_reg <= error != ERR_NONE ? CLASS_ERROR : (non_roce ? CLASS_NON_ROCE : CLASS_ROCE);
            m_error_reg <= error;
            m_frame_len_reg <= s3_len_reg;
            m_eth_valid_reg <= eth_valid;
            m_ip_valid_reg <= ip_valid;
            m_udp_valid_reg <= udp_valid;
            m_bth_valid_reg <= bth_valid;
            m_icrc_valid_reg <= icrc_valid;
            m_vlan_count_reg <= s3_vlan_count_reg;
            m_vlan_pcp_reg <= s3_outer_pcp_reg;
            m_vlan_id_reg <= s3_outer_vid_reg;
            m_eth_type_reg <= s3_eth_type_reg;
            m_ip_version_reg <= ip_version;
            m_traffic_class_reg <= traffic_class;
            m_udp_ports_reg <= {udp_sport, udp_dport};
            m_bth_reg <= s3_l4_reg[8*8 +: 96];
            m_icrc_reg <= s3_icrc_reg;
            m_icrc_ok_reg <= s3_icrc_match_reg;
            m_payload_len_reg <= body_len - trailer_len;
            m_ext_valid_reg <= {7{ext_valid}}
                & {op_reth, op_atomic, op_aeth, op_atomic_ack, op_deth, op_imm, op_ieth};
            m_ext_reg <= s3_l4_reg[20*8 +: 224];
            m_imm_offset_reg <= op_imm_offset;
            m_macs_reg <= s3_macs_reg;
            m_ip_addrs_reg <= s3_l3_reg[8*8 +: 256];
            m_is_ipv6_reg <= s3_is_ipv6;
            // Reserved bytes 0-1 of a CNP: 'M', version 1.
            m_cnp_valid_reg <= ext_valid && opcode == OPCODE_CNP && s3_l4_reg[20*8 +: 16] == 16'h014D;
        end
    end
    if (rst) begin
        m_valid_reg <= 1'b0;
    end
end

// The extension bytes with byte 0 in the top bits, so that a big-endian
// field of B bytes at offset O is ext_be[(EXT_BYTES-O-B)*8 +: B*8].
localparam EXT_BYTES = 28;
reg [EXT_BYTES*8-1:0] ext_be;
always @* begin
    for (i = 0; i < EXT_BYTES; i = i + 1) begin
        ext_be[(EXT_BYTES-1-i)*8 +: 8] = m_ext_reg[i*8 +: 8];
    end
end

reg [31:0] imm_data;
always @* begin
    case (m_imm_offset_reg)
        5'd16: imm_data = ext_be[(EXT_BYTES-16-4)*8 +: 32];
        5'd8: imm_data = ext_be[(EXT_BYTES-8-4)*8 +: 32];
        default: imm_data = ext_be[(EXT_BYTES-0-4)*8 +: 32];
    endcase
end

// Addresses with the first wire byte in the top bits.
reg [47:0]  eth_dst_be, eth_src_be;
reg [255:0] ip_addrs_be;
always @* begin
    for (i = 0; i < 6; i = i + 1) begin
        eth_dst_be[(5-i)*8 +: 8] = m_macs_reg[i*8 +: 8];
        eth_src_be[(5-i)*8 +: 8] = m_macs_reg[(6+i)*8 +: 8];
    end
    for (i = 0; i < 32; i = i + 1) begin
        ip_addrs_be[(31-i)*8 +: 8] = m_ip_addrs_reg[i*8 +: 8];
    end
end

// BTH bytes as on the wire (byte 0 = opcode).
wire [7:0] bth_b1 = m_bth_reg[1*8 +: 8];

assign m_meta_valid = m_valid_reg;
assign m_meta_frame_class = m_class_reg;
assign m_meta_frame_len = m_frame_len_reg;
assign m_meta_eth_valid = m_eth_valid_reg;
assign m_meta_vlan_count = m_vlan_count_reg;
assign m_meta_vlan_pcp = m_vlan_pcp_reg;
assign m_meta_vlan_id = m_vlan_id_reg;
assign m_meta_eth_type = m_eth_type_reg;
assign m_meta_eth_dst = eth_dst_be;
assign m_meta_eth_src = eth_src_be;
assign m_meta_ip_valid = m_ip_valid_reg;
assign m_meta_ip_version = m_ip_version_reg;
assign m_meta_dscp = m_traffic_class_reg[7:2];
assign m_meta_ecn = m_traffic_class_reg[1:0];
// IPv6: bytes 8-23 and 24-39; IPv4: bytes 12-15 and 16-19 (of bytes 8-39).
assign m_meta_ip_src = m_is_ipv6_reg ? ip_addrs_be[255:128] : {96'd0, ip_addrs_be[223:192]};
assign m_meta_ip_dst = m_is_ipv6_reg ? ip_addrs_be[127:0] : {96'd0, ip_addrs_be[191:160]};
assign m_meta_udp_valid = m_udp_valid_reg;
assign m_meta_udp_sport = m_udp_ports_reg[31:16];
assign m_meta_udp_dport = m_udp_ports_reg[15:0];
assign m_meta_bth_valid = m_bth_valid_reg;
assign m_meta_opcode = m_bth_reg[0 +: 8];
assign m_meta_se = bth_b1[7];
assign m_meta_mig_req = bth_b1[6];
assign m_meta_pad_cnt = bth_b1[5:4];
assign m_meta_tver = bth_b1[3:0];
assign m_meta_pkey = {m_bth_reg[2*8 +: 8], m_bth_reg[3*8 +: 8]};
assign m_meta_fecn = m_bth_reg[4*8+7];
assign m_meta_becn = m_bth_reg[4*8+6];
assign m_meta_dest_qp = {m_bth_reg[5*8 +: 8], m_bth_reg[6*8 +: 8], m_bth_reg[7*8 +: 8]};
assign m_meta_error = m_error_reg;
assign m_meta_ack_req = m_bth_reg[8*8+7];
assign m_meta_psn = {m_bth_reg[9*8 +: 8], m_bth_reg[10*8 +: 8], m_bth_reg[11*8 +: 8]};
assign m_meta_icrc_valid = m_icrc_valid_reg;
assign m_meta_icrc = m_icrc_reg;
assign m_meta_icrc_ok = m_icrc_ok_reg;
assign m_meta_payload_len = m_payload_len_reg;
assign m_meta_reth_valid = m_ext_valid_reg[6];
assign m_meta_reth_va = ext_be[(EXT_BYTES-0-8)*8 +: 64];
assign m_meta_reth_rkey = ext_be[(EXT_BYTES-8-4)*8 +: 32];
assign m_meta_reth_dma_len = ext_be[(EXT_BYTES-12-4)*8 +: 32];
assign m_meta_atomic_valid = m_ext_valid_reg[5];
assign m_meta_atomic_va = ext_be[(EXT_BYTES-0-8)*8 +: 64];
assign m_meta_atomic_rkey = ext_be[(EXT_BYTES-8-4)*8 +: 32];
assign m_meta_atomic_swap_add = ext_be[(EXT_BYTES-12-8)*8 +: 64];
assign m_meta_atomic_compare = ext_be[(EXT_BYTES-20-8)*8 +: 64];
assign m_meta_aeth_valid = m_ext_valid_reg[4];
assign m_meta_aeth_syndrome = ext_be[(EXT_BYTES-0-1)*8 +: 8];
assign m_meta_aeth_msn = ext_be[(EXT_BYTES-1-3)*8 +: 24];
assign m_meta_atomic_ack_valid = m_ext_valid_reg[3];
assign m_meta_atomic_ack_orig = ext_be[(EXT_BYTES-4-8)*8 +: 64];
assign m_meta_deth_valid = m_ext_valid_reg[2];
assign m_meta_deth_qkey = ext_be[(EXT_BYTES-0-4)*8 +: 32];
assign m_meta_deth_src_qp = ext_be[(EXT_BYTES-5-3)*8 +: 24];
assign m_meta_imm_valid = m_ext_valid_reg[1];
assign m_meta_imm_data = imm_data;
assign m_meta_ieth_valid = m_ext_valid_reg[0];
assign m_meta_ieth_rkey = ext_be[(EXT_BYTES-0-4)*8 +: 32];
assign m_meta_cnp_valid = m_cnp_valid_reg;
assign m_meta_cnp_extent = ext_be[(EXT_BYTES-2-2)*8 +: 16];

`ifdef METAROCE_ASSERTIONS
/*
 * Protocol assertions (simulation only; `--assert` with this define). A
 * failure calls metaroce_assertion_failed(), which the cosim harness turns
 * into the ending "RTL assertion fired".
 */
import "DPI-C" function void metaroce_assertion_failed(input string message);

localparam [LEN_WIDTH-1:0] BEAT_BYTES = KEEP_WIDTH[LEN_WIDTH-1:0];

reg                  prev_in_valid = 1'b0;
reg                  prev_in_ready;
reg [DATA_WIDTH-1:0] prev_in_data;
reg [KEEP_WIDTH-1:0] prev_in_keep;
reg                  prev_in_last;
reg                  prev_out_valid = 1'b0;
reg                  prev_out_ready;
reg [4:0]            prev_out_error;
reg [1:0]            prev_out_class;
reg [16:0]           prev_out_len;

// Lanes at and above the lowest null lane: all must be null (contiguous tkeep).
function keep_contiguous(input [KEEP_WIDTH-1:0] keep);
    integer k;
    reg seen_null;
    begin
        keep_contiguous = 1'b1;
        seen_null = 1'b0;
        for (k = 0; k < KEEP_WIDTH; k = k + 1) begin
            if (!keep[k]) seen_null = 1'b1;
            else if (seen_null) keep_contiguous = 1'b0;
        end
    end
endfunction

always @(posedge clk) begin
    if (!rst) begin
        // AXI-Stream source: a beat offered stays unchanged until taken.
        if (prev_in_valid && !prev_in_ready) begin
            assert (s_axis_tvalid) else metaroce_assertion_failed("s_axis: tvalid dropped before tready");
            assert (s_axis_tdata == prev_in_data && s_axis_tkeep == prev_in_keep && s_axis_tlast == prev_in_last)
                else metaroce_assertion_failed("s_axis: beat changed while tvalid and not tready");
        end
        if (s_axis_tvalid) begin
            assert (s_axis_tlast || &s_axis_tkeep)
                else metaroce_assertion_failed("s_axis: tkeep not all ones on a beat before tlast");
            assert (keep_contiguous(s_axis_tkeep))
                else metaroce_assertion_failed("s_axis: tkeep not contiguous from lane 0");
        end
        // Record sink: a record offered stays unchanged until taken.
        if (prev_out_valid && !prev_out_ready) begin
            assert (m_meta_valid && m_meta_error == prev_out_error && m_meta_frame_class == prev_out_class
                    && m_meta_frame_len == prev_out_len)
                else metaroce_assertion_failed("m_meta: record changed while valid and not ready");
        end
        // Internal invariants.
        if (m_meta_valid) begin
            assert ((m_meta_error == ERR_NONE) == (m_meta_frame_class != CLASS_ERROR))
                else metaroce_assertion_failed("record: error code and class disagree");
            assert (m_meta_error <= ERR_BAD_ICRC) else metaroce_assertion_failed("record: unknown error code");
        end
        if (s1_valid_reg) begin
            assert (s1_last_reg || s1_len_reg == s1_base_reg + BEAT_BYTES || s1_len_reg == LEN_MAX)
                else metaroce_assertion_failed("S1: a beat before tlast did not hold KEEP_WIDTH bytes");
        end
    end
    prev_in_valid <= s_axis_tvalid && !rst;
    prev_in_ready <= s_axis_tready;
    prev_in_data <= s_axis_tdata;
    prev_in_keep <= s_axis_tkeep;
    prev_in_last <= s_axis_tlast;
    prev_out_valid <= m_meta_valid && !rst;
    prev_out_ready <= m_meta_ready;
    prev_out_error <= m_meta_error;
    prev_out_class <= m_meta_frame_class;
    prev_out_len <= m_meta_frame_len;
end
`endif

endmodule

`resetall

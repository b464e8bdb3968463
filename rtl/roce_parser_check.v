// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The parser's layer checks (SPEC.md §3.3), pipelined: roce_parser.v hands
 * over a frame's header fields in its stage S3 and takes the verdict in S9.
 * Every register advances with ce, as the parser's stages do; the fields
 * matter on a frame's last beat only.
 *
 *   S4  lengths of each layer (IP total, IP payload, bytes after the IP
 *       header start), the layer checks that need no arithmetic, the opcode
 *       decodes (BTH; MAC Control and the bytes its opcode needs)
 *   S5  the IP, UDP and MAC Control length checks; the BTH's header and
 *       trailer sizes
 *   S6  the extension and ICRC room checks; the Ethernet, MAC Control and
 *       IP checks up to the IPv4 checksum in priority order ("A")
 *   S7  the checks after the checksum up to the ICRC in priority order ("B")
 *   S8, S9  held until the IPv4 checksum and the ICRC are known
 * The verdict is combinational from S9 and the two late inputs: A, else a
 * bad IPv4 checksum, else B, else a bad ICRC.
 *
 * | port               | width | meaning                                        |
 * |--------------------|-------|------------------------------------------------|
 * | ce                 | 1     | every stage advances                           |
 * | s_user             | 1     | S3: tuser on the last beat (mac_error)         |
 * | s_frame_len        | 17    | S3: frame bytes, saturating                    |
 * | s_vlan_count       | 2     | S3: VLAN tags (0..2)                           |
 * | s_is_ipv4/6        | 1     | S3: EtherType after the tags                   |
 * | s_is_mac_control   | 1     | S3: EtherType 0x8808 after the tags            |
 * | s_ip_hdr           | 80    | S3: IP header bytes 0-9, byte 0 in bits 7:0    |
 * |                    |       | (MAC Control: the opcode in bytes 0-1)         |
 * | s_udp_dport/len    | 16    | S3: UDP destination port and length            |
 * | s_opcode           | 8     | S3: BTH opcode                                 |
 * | s_pad_cnt, s_tver  | 2, 4  | S3: BTH PadCnt and TVer                        |
 * | s_cnp_tag          | 16    | S3: bytes 0-1 after the BTH, byte 0 in 7:0     |
 * | s_sack_tag         | 24    | S3: bytes 4-6 after the BTH, byte 4 in 7:0     |
 * | csum_ok            | 1     | S9: the IPv4 header sums to 0xFFFF             |
 * | icrc_match         | 1     | S9: the ICRC checks                            |
 * | frame_class, error | 2, 5  | the verdict (metaroce_defs.vh codes)           |
 * | *_valid            | 1     | which record fields hold (SPEC.md §3.2)        |
 * | cnp_valid, cnp_v2  | 1, 1  | a CNP tagged MetaRoCE (4D 01 or 4D 02); v2's   |
 * |                    |       | (4D 02: its fair share holds, SPEC.md 6.9)     |
 * | sack_valid         | 1     | an ACK whose 12 payload bytes or more start    |
 * |                    |       | with 4D 53 01 (selective ACK, SPEC.md 6.10)    |
 * | mac_control_valid  | 1     | the MAC Control opcode holds                   |
 * | pause_valid        | 1     | a PAUSE frame's parameters hold                |
 * | pfc_valid          | 1     | a PFC frame's parameters hold                  |
 * | ext_valid          | 7     | RETH, AtomicETH, AETH, AtomicAckETH, DETH,     |
 * |                    |       | ImmDt, IETH (bit 6 to 0)                       |
 * | imm_offset         | 5     | ImmDt's offset after the BTH                   |
 * | payload_len        | 16    | UDP length - 8 - 12 - extensions - PadCnt - 4  |
 */
module roce_parser_check #(
    parameter [15:0] ROCE_UDP_PORT = 16'd4791
) (
    input  wire        clk,
    input  wire        ce,

    input  wire        s_user,
    input  wire [16:0] s_frame_len,
    input  wire [1:0]  s_vlan_count,
    input  wire        s_is_ipv4,
    input  wire        s_is_ipv6,
    input  wire        s_is_mac_control,
    // Bytes 1 and 8 (TOS, TTL) are not checked.
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [79:0] s_ip_hdr,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [15:0] s_udp_dport,
    input  wire [15:0] s_udp_len,
    input  wire [7:0]  s_opcode,
    input  wire [1:0]  s_pad_cnt,
    input  wire [3:0]  s_tver,
    input  wire [15:0] s_cnp_tag,
    input  wire [23:0] s_sack_tag,

    input  wire        csum_ok,
    input  wire        icrc_match,

    output reg  [1:0]  frame_class,
    output reg  [4:0]  error,
    output reg         eth_valid,
    output reg         ip_valid,
    output reg         udp_valid,
    output reg         bth_valid,
    output reg         icrc_valid,
    output wire [6:0]  ext_valid,
    output wire        cnp_valid,
    output wire        cnp_v2,
    output wire        sack_valid,
    output wire        mac_control_valid,
    output wire        pause_valid,
    output wire        pfc_valid,
    output wire [4:0]  imm_offset,
    output wire [15:0] payload_len
);

`include "metaroce_defs.vh"

function [7:0] ip_byte(input integer index);
    ip_byte = s_ip_hdr[index*8 +: 8];
endfunction

/*
 * S4: layer lengths, the checks without arithmetic, the opcode decode.
 */
wire [7:0]  ip_b0 = ip_byte(0);
wire [3:0]  ip_version = ip_b0[7:4];
wire [3:0]  ihl = ip_b0[3:0];
wire [5:0]  ipv4_hdr_len = {ihl, 2'b00};
wire [15:0] ipv4_total_len = {ip_byte(2), ip_byte(3)};
wire [7:0]  ip_b6 = ip_byte(6);
wire        ipv4_more_fragments = ip_b6[5];
wire [12:0] ipv4_frag_offset = {ip_b6[4:0], ip_byte(7)};
wire [7:0]  ipv4_protocol = ip_byte(9);
wire [15:0] ipv6_payload_len = {ip_byte(4), ip_byte(5)};
wire [7:0]  ipv6_next_header = ip_b6;
// IPv6 extension headers (IANA "IPv6 Extension Header Types").
wire        ipv6_next_is_ext = ipv6_next_header == 8'd0 || ipv6_next_header == 8'd43
    || ipv6_next_header == 8'd44 || ipv6_next_header == 8'd50 || ipv6_next_header == 8'd51
    || ipv6_next_header == 8'd60 || ipv6_next_header == 8'd135 || ipv6_next_header == 8'd139
    || ipv6_next_header == 8'd140 || ipv6_next_header == 8'd253 || ipv6_next_header == 8'd254;
// MAC Control (IEEE 802.3 Table 31A-1): PAUSE needs its opcode and pause
// time, PFC its opcode, class-enable vector and eight pause times; any
// other opcode is unknown once its own two bytes are in the frame.
wire [15:0] macc_opcode = {ip_byte(0), ip_byte(1)};
wire        macc_pause = macc_opcode == 16'h0001;
wire        macc_pfc = macc_opcode == 16'h0101;
wire [4:0]  macc_len = macc_pfc ? 5'd20 : (macc_pause ? 5'd4 : 5'd2);
wire [4:0]  l3_off = 5'd14 + {1'b0, s_vlan_count, 2'b00};
wire [17:0] l3_avail_diff = {1'b0, s_frame_len} - {13'd0, l3_off};

wire       op_valid, op_reth, op_atomic, op_aeth, op_atomic_ack, op_deth, op_imm, op_ieth;
wire [4:0] op_ext_len, op_imm_offset;

roce_opcode_decode opcode_decode_inst (
    .opcode(s_opcode),
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

reg        s4_user_reg, s4_is_ipv4_reg, s4_is_ipv6_reg, s4_is_macc_reg;
reg        s4_macc_pause_reg, s4_macc_pfc_reg;
reg [4:0]  s4_macc_len_reg;
reg        s4_truncated_eth_reg;
reg [16:0] s4_l3_avail_reg;
reg [16:0] s4_ip_total_len_reg;
reg [16:0] s4_l4_len_reg;
reg [15:0] s4_ipv4_total_len_reg;
reg [5:0]  s4_ipv4_hdr_len_reg;
reg        s4_bad_version_reg, s4_bad_ihl_reg, s4_fragment_reg, s4_ipv6_ext_reg, s4_not_udp_reg;
reg        s4_not_roce_port_reg, s4_truncated_bth_reg, s4_bad_tver_reg, s4_cnp_tag_reg, s4_cnp_v2_reg;
reg        s4_sack_tag_reg;
reg [15:0] s4_udp_len_reg;
reg [1:0]  s4_pad_cnt_reg;
reg        s4_op_valid_reg;
reg [6:0]  s4_op_ext_reg;
reg [4:0]  s4_op_ext_len_reg, s4_op_imm_offset_reg;

always @(posedge clk) begin
    if (ce) begin
        s4_user_reg <= s_user;
        s4_is_ipv4_reg <= s_is_ipv4;
        s4_is_ipv6_reg <= s_is_ipv6;
        s4_is_macc_reg <= s_is_mac_control;
        s4_macc_pause_reg <= macc_pause;
        s4_macc_pfc_reg <= macc_pfc;
        s4_macc_len_reg <= macc_len;
        s4_truncated_eth_reg <= l3_avail_diff[17];
        s4_l3_avail_reg <= l3_avail_diff[16:0];
        s4_ip_total_len_reg <= s_is_ipv6 ? 17'd40 + {1'b0, ipv6_payload_len} : {1'b0, ipv4_total_len};
        s4_l4_len_reg <= s_is_ipv6 ? {1'b0, ipv6_payload_len} : {1'b0, ipv4_total_len} - {11'd0, ipv4_hdr_len};
        s4_ipv4_total_len_reg <= ipv4_total_len;
        s4_ipv4_hdr_len_reg <= ipv4_hdr_len;
        s4_bad_version_reg <= ip_version != (s_is_ipv6 ? 4'd6 : 4'd4);
        s4_bad_ihl_reg <= s_is_ipv4 && ihl < 4'd5;
        s4_fragment_reg <= s_is_ipv4 && (ipv4_more_fragments || ipv4_frag_offset != 13'd0);
        s4_ipv6_ext_reg <= s_is_ipv6 && ipv6_next_is_ext;
        s4_not_udp_reg <= (s_is_ipv6 ? ipv6_next_header : ipv4_protocol) != 8'd17;
        s4_not_roce_port_reg <= s_udp_dport != ROCE_UDP_PORT;
        s4_truncated_bth_reg <= s_udp_len < 16'd20;
        s4_bad_tver_reg <= s_tver != 4'd0;
        // A CNP whose reserved bytes 0-1 carry 'M' and version 1 or 2
        // (SPEC.md §6.3, §6.9; byte 0 in 7:0).
        s4_cnp_tag_reg <= s_opcode == OPCODE_CNP && (s_cnp_tag == 16'h014D || s_cnp_tag == 16'h024D);
        s4_cnp_v2_reg <= s_opcode == OPCODE_CNP && s_cnp_tag == 16'h024D;
        s4_sack_tag_reg <= s_opcode == OPCODE_RC_ACK && s_sack_tag == 24'h01534D;
        s4_udp_len_reg <= s_udp_len;
        s4_pad_cnt_reg <= s_pad_cnt;
        s4_op_valid_reg <= op_valid;
        s4_op_ext_reg <= {op_reth, op_atomic, op_aeth, op_atomic_ack, op_deth, op_imm, op_ieth};
        s4_op_ext_len_reg <= op_ext_len;
        s4_op_imm_offset_reg <= op_imm_offset;
    end
end

/*
 * S5: IP and UDP length checks; the BTH's header and trailer sizes.
 */
reg        s5_user_reg, s5_is_ipv4_reg, s5_truncated_eth_reg, s5_not_ip_reg;
reg        s5_is_macc_reg, s5_truncated_macc_reg, s5_macc_pause_reg, s5_macc_pfc_reg;
reg        s5_truncated_ip_reg, s5_truncated_ihl_reg, s5_bad_ip_length_reg, s5_ip_exceeds_reg;
reg        s5_truncated_udp_reg, s5_udp_mismatch_reg;
reg        s5_bad_version_reg, s5_bad_ihl_reg, s5_fragment_reg, s5_ipv6_ext_reg, s5_not_udp_reg;
reg        s5_not_roce_port_reg, s5_truncated_bth_reg, s5_bad_tver_reg, s5_cnp_tag_reg, s5_cnp_v2_reg;
reg        s5_sack_tag_reg;
reg [15:0] s5_udp_len_reg;
reg        s5_op_valid_reg;
reg [6:0]  s5_op_ext_reg;
reg [4:0]  s5_op_imm_offset_reg;
// UDP length needed for the BTH and the extensions; and for the trailer too.
reg [5:0]  s5_hdrs_len_reg;
reg [5:0]  s5_hdrs_trailer_len_reg;

always @(posedge clk) begin
    if (ce) begin
        s5_user_reg <= s4_user_reg;
        s5_is_ipv4_reg <= s4_is_ipv4_reg;
        s5_truncated_eth_reg <= s4_truncated_eth_reg;
        s5_not_ip_reg <= !s4_is_ipv4_reg && !s4_is_ipv6_reg;
        s5_is_macc_reg <= s4_is_macc_reg;
        s5_truncated_macc_reg <= s4_l3_avail_reg < {12'd0, s4_macc_len_reg};
        s5_macc_pause_reg <= s4_macc_pause_reg;
        s5_macc_pfc_reg <= s4_macc_pfc_reg;
        s5_truncated_ip_reg <= s4_l3_avail_reg < (s4_is_ipv6_reg ? 17'd40 : 17'd20);
        s5_truncated_ihl_reg <= s4_is_ipv4_reg && s4_l3_avail_reg < {11'd0, s4_ipv4_hdr_len_reg};
        s5_bad_ip_length_reg <= s4_is_ipv4_reg && s4_ipv4_total_len_reg < {10'd0, s4_ipv4_hdr_len_reg};
        s5_ip_exceeds_reg <= s4_ip_total_len_reg > s4_l3_avail_reg;
        s5_truncated_udp_reg <= s4_l4_len_reg < 17'd8;
        s5_udp_mismatch_reg <= {1'b0, s4_udp_len_reg} != s4_l4_len_reg;
        s5_bad_version_reg <= s4_bad_version_reg;
        s5_bad_ihl_reg <= s4_bad_ihl_reg;
        s5_fragment_reg <= s4_fragment_reg;
        s5_ipv6_ext_reg <= s4_ipv6_ext_reg;
        s5_not_udp_reg <= s4_not_udp_reg;
        s5_not_roce_port_reg <= s4_not_roce_port_reg;
        s5_truncated_bth_reg <= s4_truncated_bth_reg;
        s5_bad_tver_reg <= s4_bad_tver_reg;
        s5_cnp_tag_reg <= s4_cnp_tag_reg;
        s5_cnp_v2_reg <= s4_cnp_v2_reg;
        s5_sack_tag_reg <= s4_sack_tag_reg;
        s5_udp_len_reg <= s4_udp_len_reg;
        s5_op_valid_reg <= s4_op_valid_reg;
        s5_op_ext_reg <= s4_op_ext_reg;
        s5_op_imm_offset_reg <= s4_op_imm_offset_reg;
        // UDP 8 + BTH 12 + extensions; + PadCnt + ICRC 4.
        s5_hdrs_len_reg <= 6'd20 + {1'b0, s4_op_ext_len_reg};
        s5_hdrs_trailer_len_reg <= 6'd24 + {1'b0, s4_op_ext_len_reg} + {4'd0, s4_pad_cnt_reg};
    end
end

/*
 * S6: extension and ICRC room; the checks before the IPv4 checksum ("A"),
 * outermost first.
 */
reg [4:0]  s6_error_a_reg;
reg        s6_stop_a_reg, s6_eth_valid_reg, s6_ip_valid_reg, s6_check_csum_reg;
reg        s6_macc_valid_reg, s6_pause_valid_reg, s6_pfc_valid_reg;
reg        s6_bad_ip_length_reg, s6_ip_exceeds_reg, s6_fragment_reg, s6_ipv6_ext_reg, s6_not_udp_reg;
reg        s6_truncated_udp_reg, s6_not_roce_port_reg, s6_udp_mismatch_reg, s6_truncated_bth_reg;
reg        s6_bad_tver_reg, s6_bad_opcode_reg, s6_truncated_ext_reg, s6_no_icrc_room_reg, s6_cnp_tag_reg;
reg        s6_cnp_v2_reg, s6_sack_tag_reg;
reg [6:0]  s6_op_ext_reg;
reg [4:0]  s6_op_imm_offset_reg;
reg [15:0] s6_payload_len_reg;

reg [4:0] error_a;
reg       stop_a, eth_valid_a, ip_valid_a, macc_valid_a, pause_valid_a, pfc_valid_a;

always @* begin
    error_a = ERR_NONE;
    stop_a = 1'b1;
    eth_valid_a = 1'b0;
    ip_valid_a = 1'b0;
    macc_valid_a = 1'b0;
    pause_valid_a = 1'b0;
    pfc_valid_a = 1'b0;
    if (s5_user_reg) begin
        error_a = ERR_MAC_ERROR;
    end else if (s5_truncated_eth_reg) begin
        error_a = ERR_TRUNCATED_ETH;
    end else begin
        eth_valid_a = 1'b1;
        if (s5_is_macc_reg) begin
            // flow_control (PAUSE or PFC valid) or an error; stop either way.
            if (s5_truncated_macc_reg) begin
                error_a = ERR_TRUNCATED_MAC_CONTROL;
            end else begin
                macc_valid_a = 1'b1;
                pause_valid_a = s5_macc_pause_reg;
                pfc_valid_a = s5_macc_pfc_reg;
                if (!s5_macc_pause_reg && !s5_macc_pfc_reg) error_a = ERR_UNKNOWN_MAC_CONTROL_OPCODE;
            end
        end else if (s5_not_ip_reg) begin
            // non_roce: stop without an error.
        end else if (s5_truncated_ip_reg) begin
            error_a = ERR_TRUNCATED_IP;
        end else begin
            ip_valid_a = 1'b1;
            if (s5_bad_version_reg) begin
                error_a = ERR_BAD_IP_VERSION;
            end else if (s5_bad_ihl_reg) begin
                error_a = ERR_BAD_IHL;
            end else if (s5_truncated_ihl_reg) begin
                error_a = ERR_TRUNCATED_IP;
            end else begin
                stop_a = 1'b0;
            end
        end
    end
end

always @(posedge clk) begin
    if (ce) begin
        s6_error_a_reg <= error_a;
        s6_stop_a_reg <= stop_a;
        s6_eth_valid_reg <= eth_valid_a;
        s6_ip_valid_reg <= ip_valid_a;
        s6_macc_valid_reg <= macc_valid_a;
        s6_pause_valid_reg <= pause_valid_a;
        s6_pfc_valid_reg <= pfc_valid_a;
        s6_check_csum_reg <= s5_is_ipv4_reg;
        s6_bad_ip_length_reg <= s5_bad_ip_length_reg;
        s6_ip_exceeds_reg <= s5_ip_exceeds_reg;
        s6_fragment_reg <= s5_fragment_reg;
        s6_ipv6_ext_reg <= s5_ipv6_ext_reg;
        s6_not_udp_reg <= s5_not_udp_reg;
        s6_truncated_udp_reg <= s5_truncated_udp_reg;
        s6_not_roce_port_reg <= s5_not_roce_port_reg;
        s6_udp_mismatch_reg <= s5_udp_mismatch_reg;
        s6_truncated_bth_reg <= s5_truncated_bth_reg;
        s6_bad_tver_reg <= s5_bad_tver_reg;
        s6_bad_opcode_reg <= !s5_op_valid_reg;
        // Checked only once the UDP length is >= 20, so neither side wraps.
        s6_truncated_ext_reg <= s5_udp_len_reg < {10'd0, s5_hdrs_len_reg};
        s6_no_icrc_room_reg <= s5_udp_len_reg < {10'd0, s5_hdrs_trailer_len_reg};
        s6_cnp_tag_reg <= s5_cnp_tag_reg;
        s6_cnp_v2_reg <= s5_cnp_v2_reg;
        s6_sack_tag_reg <= s5_sack_tag_reg;
        s6_op_ext_reg <= s5_op_ext_reg;
        s6_op_imm_offset_reg <= s5_op_imm_offset_reg;
        s6_payload_len_reg <= s5_udp_len_reg - {10'd0, s5_hdrs_trailer_len_reg};
    end
end

/*
 * S7: the checks after the IPv4 checksum ("B"), up to the ICRC.
 */
reg [4:0] error_b;
reg       non_roce_b, udp_valid_b, bth_valid_b, ext_valid_b;

always @* begin
    error_b = ERR_NONE;
    non_roce_b = 1'b0;
    udp_valid_b = 1'b0;
    bth_valid_b = 1'b0;
    ext_valid_b = 1'b0;
    if (s6_bad_ip_length_reg) begin
        error_b = ERR_BAD_IP_LENGTH;
    end else if (s6_ip_exceeds_reg) begin
        error_b = ERR_IP_LENGTH_EXCEEDS_FRAME;
    end else if (s6_fragment_reg) begin
        error_b = ERR_IP_FRAGMENT;
    end else if (s6_ipv6_ext_reg) begin
        error_b = ERR_IPV6_EXT_HEADER;
    end else if (s6_not_udp_reg) begin
        non_roce_b = 1'b1;
    end else if (s6_truncated_udp_reg) begin
        error_b = ERR_TRUNCATED_UDP;
    end else begin
        udp_valid_b = 1'b1;
        if (s6_not_roce_port_reg) begin
            non_roce_b = 1'b1;
        end else if (s6_udp_mismatch_reg) begin
            error_b = ERR_UDP_LENGTH_MISMATCH;
        end else if (s6_truncated_bth_reg) begin
            error_b = ERR_TRUNCATED_BTH;
        end else begin
            bth_valid_b = 1'b1;
            if (s6_bad_tver_reg) begin
                error_b = ERR_BAD_TVER;
            end else if (s6_bad_opcode_reg) begin
                error_b = ERR_RESERVED_OPCODE;
            end else if (s6_truncated_ext_reg) begin
                error_b = ERR_TRUNCATED_EXT;
            end else begin
                ext_valid_b = 1'b1;
                if (s6_no_icrc_room_reg) error_b = ERR_TOO_SHORT_FOR_ICRC;
            end
        end
    end
end

// S7 to S9: what the verdict needs, held until the late inputs arrive.
localparam HOLD_WIDTH = 5 + 4 + 3 + 5 + 4 + 1 + 7 + 3 + 5 + 16;

wire [HOLD_WIDTH-1:0] s7_hold_next = {
    s6_error_a_reg, s6_stop_a_reg, s6_eth_valid_reg, s6_ip_valid_reg, s6_check_csum_reg,
    s6_macc_valid_reg, s6_pause_valid_reg, s6_pfc_valid_reg,
    error_b, non_roce_b, udp_valid_b, bth_valid_b, ext_valid_b,
    // ICRC fields hold when the extensions do and the trailer fits.
    ext_valid_b && !s6_no_icrc_room_reg,
    s6_op_ext_reg, s6_cnp_tag_reg, s6_cnp_v2_reg, s6_sack_tag_reg, s6_op_imm_offset_reg, s6_payload_len_reg
};

reg [HOLD_WIDTH-1:0] s7_hold_reg, s8_hold_reg, s9_hold_reg;

always @(posedge clk) begin
    if (ce) begin
        s7_hold_reg <= s7_hold_next;
        s8_hold_reg <= s7_hold_reg;
        s9_hold_reg <= s8_hold_reg;
    end
end

wire [4:0] s9_error_a, s9_error_b;
wire       s9_stop_a, s9_eth_valid, s9_ip_valid, s9_check_csum;
wire       s9_macc_valid, s9_pause_valid, s9_pfc_valid;
wire       s9_non_roce_b, s9_udp_valid_b, s9_bth_valid_b, s9_ext_valid_b, s9_icrc_valid_b;
wire [6:0] s9_op_ext;
wire       s9_cnp_tag, s9_cnp_v2, s9_sack_tag;

assign {
    s9_error_a, s9_stop_a, s9_eth_valid, s9_ip_valid, s9_check_csum,
    s9_macc_valid, s9_pause_valid, s9_pfc_valid,
    s9_error_b, s9_non_roce_b, s9_udp_valid_b, s9_bth_valid_b, s9_ext_valid_b,
    s9_icrc_valid_b,
    s9_op_ext, s9_cnp_tag, s9_cnp_v2, s9_sack_tag, imm_offset, payload_len
} = s9_hold_reg;

// The verdict: A, else the IPv4 checksum, else B, else the ICRC.
reg ext_ok;

always @* begin
    eth_valid = s9_eth_valid;
    ip_valid = s9_ip_valid;
    udp_valid = 1'b0;
    bth_valid = 1'b0;
    ext_ok = 1'b0;
    icrc_valid = 1'b0;
    frame_class = CLASS_ROCE;
    if (s9_stop_a) begin
        error = s9_error_a;
        if (s9_error_a != ERR_NONE) frame_class = CLASS_ERROR;
        else if (s9_pause_valid || s9_pfc_valid) frame_class = CLASS_FLOW_CONTROL;
        else frame_class = CLASS_NON_ROCE;
    end else if (s9_check_csum && !csum_ok) begin
        error = ERR_BAD_IPV4_CHECKSUM;
        frame_class = CLASS_ERROR;
    end else begin
        udp_valid = s9_udp_valid_b;
        bth_valid = s9_bth_valid_b;
        ext_ok = s9_ext_valid_b;
        icrc_valid = s9_icrc_valid_b;
        error = s9_error_b;
        if (s9_icrc_valid_b && !icrc_match) error = ERR_BAD_ICRC;
        if (error != ERR_NONE) frame_class = CLASS_ERROR;
        else if (s9_non_roce_b) frame_class = CLASS_NON_ROCE;
    end
end

assign ext_valid = {7{ext_ok}} & s9_op_ext;
assign cnp_valid = ext_ok && s9_cnp_tag;
assign cnp_v2 = ext_ok && s9_cnp_v2;
// The extension is 12 bytes of payload: the ICRC's fields must hold.
assign sack_valid = icrc_valid && s9_sack_tag && payload_len >= 16'd12;
// A MAC Control frame stops at A, so nothing after it can clear these.
assign mac_control_valid = s9_macc_valid;
assign pause_valid = s9_pause_valid;
assign pfc_valid = s9_pfc_valid;

endmodule

`resetall

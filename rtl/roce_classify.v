// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Frame classifier (SPEC.md §6.1; golden/src/cn_event.rs `classify`): a
 * parse record and its side band become at most one congestion-notification
 * event. Only records of class roce with a BTH count. A RoCE frame the host
 * marked as sent is sent data of the QP it names; otherwise a RoCE frame to
 * the local MAC (any frame when cfg_local_mac_valid is low) is a received
 * CNP (opcode 0x81) or received data of its BTH DestQP. Anything else is
 * taken and dropped. The event waits in a register for the CN block.
 * Received data also carries the BTH PSN and AckReq, whether the opcode is
 * an RC SEND or WRITE request (0x00-0x0B, 0x16, 0x17: the responder's
 * input, SPEC.md §6.10) and whether it ends a message (0x02-0x05,
 * 0x08-0x0B, 0x16, 0x17; golden/src/opcode.rs); an RC ACKNOWLEDGE (0x11)
 * with its AETH carries the AETH syndrome (the requester's input, SPEC.md
 * §6.11), and its selective-ACK extension when it has one (§6.10). Sent
 * data carries the BTH PSN and whether the opcode is an RC SEND or WRITE
 * request (the requester's input too).
 *
 * | port                 | width | meaning                                    |
 * |----------------------|-------|--------------------------------------------|
 * | cfg_local_mac(_valid)| 48, 1 | this NIC's MAC                             |
 * | s_meta_*             |       | the parse record (roce_parser.v)           |
 * | s_meta_aeth_valid/   | 1, 8  | ... its AETH and the AETH's syndrome       |
 * | s_meta_aeth_syndrome |       |                                            |
 * | s_meta_sack_*        | 1,1,64| ... its selective-ACK extension             |
 * | s_meta_tick          | 64    | side band: the frame's tick                |
 * | s_meta_tx            | 1     | side band: the host sent this frame ...    |
 * | s_meta_tx_qp         | 24    | ... on this local QP                       |
 * | m_evt_*              |       | the event (roce_cn.v's s_evt_*)            |
 */
module roce_classify (
    input  wire         clk,
    input  wire         rst,

    input  wire         cfg_local_mac_valid,
    input  wire [47:0]  cfg_local_mac,

    input  wire         s_meta_valid,
    output wire         s_meta_ready,
    input  wire [1:0]   s_meta_frame_class,
    input  wire [16:0]  s_meta_frame_len,
    input  wire [1:0]   s_meta_vlan_count,
    input  wire [11:0]  s_meta_vlan_id,
    input  wire [47:0]  s_meta_eth_dst,
    input  wire [47:0]  s_meta_eth_src,
    input  wire [3:0]   s_meta_ip_version,
    input  wire [1:0]   s_meta_ecn,
    input  wire [127:0] s_meta_ip_src,
    input  wire [127:0] s_meta_ip_dst,
    input  wire [15:0]  s_meta_udp_sport,
    input  wire         s_meta_bth_valid,
    input  wire [7:0]   s_meta_opcode,
    input  wire [23:0]  s_meta_dest_qp,
    input  wire         s_meta_ack_req,
    input  wire [23:0]  s_meta_psn,
    input  wire         s_meta_deth_valid,
    input  wire [23:0]  s_meta_deth_src_qp,
    input  wire         s_meta_cnp_valid,
    input  wire [15:0]  s_meta_cnp_extent,
    input  wire         s_meta_aeth_valid,
    input  wire [7:0]   s_meta_aeth_syndrome,
    input  wire         s_meta_sack_valid,
    input  wire         s_meta_sack_beyond,
    input  wire [63:0]  s_meta_sack_bitmap,
    input  wire [63:0]  s_meta_tick,
    input  wire         s_meta_tx,
    input  wire [23:0]  s_meta_tx_qp,

    output wire         m_evt_valid,
    input  wire         m_evt_ready,
    output wire [1:0]   m_evt_kind,
    output wire [63:0]  m_evt_time,
    output wire [23:0]  m_evt_qp,
    output wire         m_evt_ce,
    output wire [16:0]  m_evt_len,
    output wire         m_evt_ipv6,
    output wire         m_evt_vlan_valid,
    output wire [11:0]  m_evt_vlan_id,
    output wire [47:0]  m_evt_eth_dst,
    output wire [47:0]  m_evt_eth_src,
    output wire [127:0] m_evt_ip_src,
    output wire [127:0] m_evt_ip_dst,
    output wire [15:0]  m_evt_udp_sport,
    output wire         m_evt_src_qp_valid,
    output wire [23:0]  m_evt_src_qp,
    output wire         m_evt_extent_valid,
    output wire [15:0]  m_evt_extent,
    output wire [23:0]  m_evt_psn,
    output wire         m_evt_ack_req,
    output wire         m_evt_rc_req,
    output wire         m_evt_msg_end,
    output wire         m_evt_syndrome_valid,
    output wire [7:0]   m_evt_syndrome,
    output wire         m_evt_sack_valid,
    output wire         m_evt_sack_beyond,
    output wire [63:0]  m_evt_sack_bitmap
);

`include "metaroce_defs.vh"

reg         evt_valid_reg = 1'b0;
reg [1:0]   evt_kind_reg;
reg [63:0]  evt_time_reg;
reg [23:0]  evt_qp_reg;
reg         evt_ce_reg;
reg [16:0]  evt_len_reg;
reg         evt_ipv6_reg;
reg         evt_vlan_valid_reg;
reg [11:0]  evt_vlan_id_reg;
reg [47:0]  evt_eth_dst_reg;
reg [47:0]  evt_eth_src_reg;
reg [127:0] evt_ip_src_reg;
reg [127:0] evt_ip_dst_reg;
reg [15:0]  evt_udp_sport_reg;
reg         evt_src_qp_valid_reg;
reg [23:0]  evt_src_qp_reg;
reg         evt_extent_valid_reg;
reg [15:0]  evt_extent_reg;
reg [23:0]  evt_psn_reg;
reg         evt_ack_req_reg;
reg         evt_rc_req_reg;
reg         evt_msg_end_reg;
reg         evt_syndrome_valid_reg;
reg [7:0]   evt_syndrome_reg;
reg         evt_sack_valid_reg;
reg         evt_sack_beyond_reg;
reg [63:0]  evt_sack_bitmap_reg;

// An RC SEND or RDMA WRITE request, and the last or only packet of its
// message (golden/src/opcode.rs rc_request, message_end).
wire rc_req = s_meta_opcode <= 8'h0B || s_meta_opcode == 8'h16 || s_meta_opcode == 8'h17;
wire msg_end = (s_meta_opcode >= 8'h02 && s_meta_opcode <= 8'h05) || (s_meta_opcode >= 8'h08 && s_meta_opcode <= 8'h0B)
               || s_meta_opcode == 8'h16 || s_meta_opcode == 8'h17;
// RC ACKNOWLEDGE (OPCODE_RC_ACK, metaroce_defs.vh): with its AETH, an ACK
// or NAK for the requester (received data only).
wire rc_ack = s_meta_opcode == OPCODE_RC_ACK && s_meta_aeth_valid;

wire roce = s_meta_frame_class == CLASS_ROCE && s_meta_bth_valid;
wire received = !cfg_local_mac_valid || s_meta_eth_dst == cfg_local_mac;
wire is_tx = roce && s_meta_tx;
wire is_rx = roce && !s_meta_tx && received;
assign s_meta_ready = !evt_valid_reg || m_evt_ready;
wire meta_taken = s_meta_valid && s_meta_ready;

always @(posedge clk) begin
    if (evt_valid_reg && m_evt_ready) begin
        evt_valid_reg <= 1'b0;
    end
    if (meta_taken && (is_tx || is_rx)) begin
        evt_valid_reg <= 1'b1;
        evt_kind_reg <= is_tx ? KIND_TX_DATA : (s_meta_opcode == OPCODE_CNP ? KIND_RX_CNP : KIND_RX_DATA);
        evt_time_reg <= s_meta_tick;
        evt_qp_reg <= is_tx ? s_meta_tx_qp : s_meta_dest_qp;
        evt_ce_reg <= s_meta_ecn == 2'd3;
        evt_len_reg <= s_meta_frame_len;
        evt_ipv6_reg <= s_meta_ip_version == 4'd6;
        evt_vlan_valid_reg <= s_meta_vlan_count != 2'd0;
        evt_vlan_id_reg <= s_meta_vlan_id;
        evt_eth_dst_reg <= s_meta_eth_dst;
        evt_eth_src_reg <= s_meta_eth_src;
        evt_ip_src_reg <= s_meta_ip_src;
        evt_ip_dst_reg <= s_meta_ip_dst;
        evt_udp_sport_reg <= s_meta_udp_sport;
        evt_src_qp_valid_reg <= s_meta_deth_valid;
        evt_src_qp_reg <= s_meta_deth_src_qp;
        evt_extent_valid_reg <= s_meta_cnp_valid;
        evt_extent_reg <= s_meta_cnp_extent;
        evt_psn_reg <= s_meta_psn;
        evt_ack_req_reg <= s_meta_ack_req;
        evt_rc_req_reg <= rc_req;
        evt_msg_end_reg <= msg_end;
        evt_syndrome_valid_reg <= !is_tx && rc_ack;
        evt_syndrome_reg <= s_meta_aeth_syndrome;
        evt_sack_valid_reg <= !is_tx && rc_ack && s_meta_sack_valid;
        evt_sack_beyond_reg <= s_meta_sack_beyond;
        evt_sack_bitmap_reg <= s_meta_sack_bitmap;
    end
    if (rst) begin
        evt_valid_reg <= 1'b0;
    end
end

assign m_evt_valid = evt_valid_reg;
assign m_evt_kind = evt_kind_reg;
assign m_evt_time = evt_time_reg;
assign m_evt_qp = evt_qp_reg;
assign m_evt_ce = evt_ce_reg;
assign m_evt_len = evt_len_reg;
assign m_evt_ipv6 = evt_ipv6_reg;
assign m_evt_vlan_valid = evt_vlan_valid_reg;
assign m_evt_vlan_id = evt_vlan_id_reg;
assign m_evt_eth_dst = evt_eth_dst_reg;
assign m_evt_eth_src = evt_eth_src_reg;
assign m_evt_ip_src = evt_ip_src_reg;
assign m_evt_ip_dst = evt_ip_dst_reg;
assign m_evt_udp_sport = evt_udp_sport_reg;
assign m_evt_src_qp_valid = evt_src_qp_valid_reg;
assign m_evt_src_qp = evt_src_qp_reg;
assign m_evt_extent_valid = evt_extent_valid_reg;
assign m_evt_extent = evt_extent_reg;
assign m_evt_psn = evt_psn_reg;
assign m_evt_ack_req = evt_ack_req_reg;
assign m_evt_rc_req = evt_rc_req_reg;
assign m_evt_msg_end = evt_msg_end_reg;
assign m_evt_syndrome_valid = evt_syndrome_valid_reg;
assign m_evt_syndrome = evt_syndrome_reg;
assign m_evt_sack_valid = evt_sack_valid_reg;
assign m_evt_sack_beyond = evt_sack_beyond_reg;
assign m_evt_sack_bitmap = evt_sack_bitmap_reg;

endmodule

`resetall

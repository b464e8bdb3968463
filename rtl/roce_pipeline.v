// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "metaroce_cfg.vh"

/*
 * The metaroce pipeline (SPEC.md §8): every frame at the NIC's port is
 * parsed; received RoCE frames feed the notification point (CNPs out),
 * received RC requests the responder too (ACKs and NAKs out, SPEC.md
 * §6.10), received ACKs and NAKs the requester too (retransmit requests
 * out, SPEC.md §6.11), and received CNPs the reaction point; frames the
 * host sends feed the reaction point's byte counter (and, RC requests, the
 * requester) and, handed on in the reaction point's order, the pacer,
 * which releases them at their QP's rate.
 *
 *   s_axis -> roce_parser -> roce_classify -> [skid] -> roce_cn -> m_axis (CNPs, ACKs)
 *                                                            |  -> m_retx (retransmit requests)
 *                                         m_rate, s_adv -> [skid] -> roce_pacer -> m_rel
 *
 * A frame's tick and whether the host sent it travel in s_axis_tuser on its
 * first beat and wait in a small FIFO beside the parser for its record; the
 * classifier (roce_classify.v, SPEC.md §6.1) makes record and side band
 * into an event for the CN block. Every boundary is registered: the
 * parser's record and the classifier's event leave registers, the event
 * and the pacer's commands pass a skid buffer (roce_skid.v), so no
 * combinational path runs from one block into another. Latency (SPEC.md
 * §8): one cycle more from event to CN block, one more from RP
 * transaction to pacer; neither changes what comes out.
 *
 * | port                 | width      | meaning                                  |
 * |----------------------|------------|------------------------------------------|
 * | s_axis_tuser[0]      | 1          | on tlast: MAC bad frame (roce_parser.v)  |
 * | s_axis_tuser[64:1]   | 64         | first beat: the frame's tick             |
 * | s_axis_tuser[65]     | 1          | first beat: the host sent this frame     |
 * | s_axis_tuser[89:66]  | 24         | first beat: ... on this local QP         |
 * | cfg_local_mac(_valid)| 48, 1      | this NIC's MAC                           |
 * | cfg                  | CFG_WIDTH  | congestion-control registers, the bus of |
 * |                      |            | rtl/metaroce_cfg.vh (SPEC.md §6.2, §7.1) |
 * | s_qpctx_*            |            | QP context table (cnp_notify.v,          |
 * |                      |            | roce_responder.v: psn_valid/psn = rq_psn)|
 * | flush                | 1          | no more frames: the pacer releases all   |
 * |                      |            | it holds once everything before is in    |
 * | s_adv_*              | 64         | time moves on to s_adv_time: the pacer   |
 * |                      |            | releases what is due by then, and the    |
 * |                      |            | requester's timers run out (a time event |
 * |                      |            | to the CN block), once everything before |
 * |                      |            | is in (a driver's clock between frames)  |
 * | next_busy_*          | 1, 64      | when the NIC next has work to do: the    |
 * |                      |            | pacer's next slot (roce_pacer.v) or a    |
 * |                      |            | retransmit timer (roce_requester.v),     |
 * |                      |            | whichever is first; for the next s_adv   |
 * | m_axis_*             | DATA_WIDTH | CNP, ACK and NAK frames, tuser = emit    |
 * |                      |            | tick                                     |
 * | m_rel_*              |            | releases and drops (roce_pacer.v)        |
 * | m_retx_time/qp/      | 64, 24,    | retransmit requests (roce_requester.v,   |
 * | psn/count/cause/mask | 24, 24, 2, | SPEC.md §6.11), from the CN block's      |
 * |                      | 64         | output buffer                            |
 * | mon_rate_*           |            | the reaction point's transactions as the |
 * |                      |            | pacer takes them (monitor, no handshake) |
 * | busy                 | 1          | a frame, event or packet is still inside |
 * | active               | 1          | busy, but for packets waiting their time |
 */
module roce_pipeline #(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH/8,
    parameter QP_COUNT = 4096,
    parameter SLOT_COUNT = 256,
    parameter SLOT_SHIFT = 6,
    parameter DESC_COUNT = 4096,
    parameter TICK_FIFO_DEPTH = 8,
    parameter [15:0] ROCE_UDP_PORT = 16'd4791
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire                   cfg_local_mac_valid,
    input  wire [47:0]            cfg_local_mac,
    input  wire [`CFG_WIDTH-1:0]  cfg,

    input  wire                   s_qpctx_valid,
    output wire                   s_qpctx_ready,
    input  wire [23:0]            s_qpctx_local,
    input  wire [23:0]            s_qpctx_remote,
    input  wire [2:0]             s_qpctx_priority,
    input  wire                   s_qpctx_psn_valid,
    input  wire [23:0]            s_qpctx_psn,

    input  wire [DATA_WIDTH-1:0]  s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]  s_axis_tkeep,
    input  wire                   s_axis_tvalid,
    output wire                   s_axis_tready,
    input  wire                   s_axis_tlast,
    input  wire [89:0]            s_axis_tuser,
    input  wire                   flush,

    input  wire                   s_adv_valid,
    output wire                   s_adv_ready,
    input  wire [63:0]            s_adv_time,

    output wire [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire [63:0]            m_axis_tuser,

    output wire                   m_rel_valid,
    input  wire                   m_rel_ready,
    output wire [63:0]            m_rel_time,
    output wire [23:0]            m_rel_qp,
    output wire [16:0]            m_rel_len,
    output wire                   m_rel_drop,

    output wire                   m_retx_valid,
    input  wire                   m_retx_ready,
    output wire [63:0]            m_retx_time,
    output wire [23:0]            m_retx_qp,
    output wire [23:0]            m_retx_psn,
    output wire [23:0]            m_retx_count,
    output wire [1:0]             m_retx_cause,
    output wire [63:0]            m_retx_mask,

    output wire                   mon_rate_fire,
    output wire [63:0]            mon_rate_time,
    output wire [23:0]            mon_rate_qp,
    output wire [31:0]            mon_rate_rate,
    output wire [31:0]            mon_rate_target,
    output wire [15:0]            mon_rate_alpha,
    output wire [1:0]             mon_rate_stage,
    output wire [1:0]             mon_rate_trigger,
    output wire                   mon_rate_sent,
    output wire [16:0]            mon_rate_len,

    output wire                   next_busy_valid,
    output wire [63:0]            next_busy_time,

    output wire                   busy,
    output wire                   active
);

localparam FIFO_INDEX_WIDTH = $clog2(TICK_FIFO_DEPTH);
`include "metaroce_defs.vh"

// Illegal parameters stop elaboration: the instance of a module that does
// not exist names the rule (Icarus Verilog 11 has no elaboration $error).
generate
    if (TICK_FIFO_DEPTH < 2 || (TICK_FIFO_DEPTH & (TICK_FIFO_DEPTH - 1)) != 0) begin : g_bad_fifo_depth
        roce_pipeline_TICK_FIFO_DEPTH_must_be_a_power_of_2_at_least_2 bad_fifo_depth();
    end
endgenerate

// The frame's side band, from its first beat to its record.
reg [88:0] frame_fifo_mem [0:TICK_FIFO_DEPTH-1];
reg [FIFO_INDEX_WIDTH:0] fifo_wr_reg = 0;
reg [FIFO_INDEX_WIDTH:0] fifo_rd_reg = 0;
reg frame_start_reg = 1'b1;
wire fifo_empty = fifo_wr_reg == fifo_rd_reg;
wire fifo_full = fifo_wr_reg == {~fifo_rd_reg[FIFO_INDEX_WIDTH], fifo_rd_reg[FIFO_INDEX_WIDTH-1:0]};

wire parser_tready;
// A frame starts only with room for its side band.
assign s_axis_tready = parser_tready && !(frame_start_reg && fifo_full);
wire beat_taken = s_axis_tvalid && s_axis_tready;

wire         meta_valid;
wire         meta_ready;
wire [1:0]   meta_class;
wire [16:0]  meta_frame_len;
wire [1:0]   meta_vlan_count;
wire [11:0]  meta_vlan_id;
wire [47:0]  meta_eth_dst;
wire [47:0]  meta_eth_src;
wire [3:0]   meta_ip_version;
wire [1:0]   meta_ecn;
wire [127:0] meta_ip_src;
wire [127:0] meta_ip_dst;
wire [15:0]  meta_udp_sport;
wire         meta_bth_valid;
wire [7:0]   meta_opcode;
wire [23:0]  meta_dest_qp;
wire         meta_ack_req;
wire [23:0]  meta_psn;
wire         meta_deth_valid;
wire [23:0]  meta_deth_src_qp;
wire         meta_cnp_valid;
wire [15:0]  meta_cnp_extent;
wire         meta_aeth_valid;
wire [7:0]   meta_aeth_syndrome;
wire         meta_sack_valid;
wire         meta_sack_beyond;
wire [63:0]  meta_sack_bitmap;
wire         meta_pause_valid;
wire [15:0]  meta_pause_time;
wire         meta_pfc_valid;
wire [15:0]  meta_pfc_enable;
wire [127:0] meta_pfc_quanta;

/* verilator lint_off PINCONNECTEMPTY */
roce_parser #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .ROCE_UDP_PORT(ROCE_UDP_PORT)
) parser_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid && !(frame_start_reg && fifo_full)),
    .s_axis_tready(parser_tready),
    .s_axis_tlast(s_axis_tlast),
    .s_axis_tuser(s_axis_tuser[0]),
    .m_meta_valid(meta_valid),
    .m_meta_ready(meta_ready),
    .m_meta_frame_class(meta_class),
    .m_meta_error(),
    .m_meta_frame_len(meta_frame_len),
    .m_meta_eth_valid(),
    .m_meta_vlan_count(meta_vlan_count),
    .m_meta_vlan_pcp(),
    .m_meta_vlan_id(meta_vlan_id),
    .m_meta_eth_type(),
    .m_meta_eth_dst(meta_eth_dst),
    .m_meta_eth_src(meta_eth_src),
    .m_meta_ip_valid(),
    .m_meta_ip_version(meta_ip_version),
    .m_meta_dscp(),
    .m_meta_ecn(meta_ecn),
    .m_meta_ip_src(meta_ip_src),
    .m_meta_ip_dst(meta_ip_dst),
    .m_meta_udp_valid(),
    .m_meta_udp_sport(meta_udp_sport),
    .m_meta_udp_dport(),
    .m_meta_bth_valid(meta_bth_valid),
    .m_meta_opcode(meta_opcode),
    .m_meta_se(),
    .m_meta_mig_req(),
    .m_meta_pad_cnt(),
    .m_meta_tver(),
    .m_meta_pkey(),
    .m_meta_fecn(),
    .m_meta_becn(),
    .m_meta_dest_qp(meta_dest_qp),
    .m_meta_ack_req(meta_ack_req),
    .m_meta_psn(meta_psn),
    .m_meta_icrc_valid(),
    .m_meta_icrc(),
    .m_meta_icrc_ok(),
    .m_meta_payload_len(),
    .m_meta_reth_valid(),
    .m_meta_reth_va(),
    .m_meta_reth_rkey(),
    .m_meta_reth_dma_len(),
    .m_meta_aeth_valid(meta_aeth_valid),
    .m_meta_aeth_syndrome(meta_aeth_syndrome),
    .m_meta_aeth_msn(),
    .m_meta_imm_valid(),
    .m_meta_imm_data(),
    .m_meta_ieth_valid(),
    .m_meta_ieth_rkey(),
    .m_meta_deth_valid(meta_deth_valid),
    .m_meta_deth_qkey(),
    .m_meta_deth_src_qp(meta_deth_src_qp),
    .m_meta_atomic_valid(),
    .m_meta_atomic_va(),
    .m_meta_atomic_rkey(),
    .m_meta_atomic_swap_add(),
    .m_meta_atomic_compare(),
    .m_meta_atomic_ack_valid(),
    .m_meta_atomic_ack_orig(),
    .m_meta_cnp_valid(meta_cnp_valid),
    .m_meta_cnp_extent(meta_cnp_extent),
    .m_meta_cnp_v2(),
    .m_meta_cnp_flags(),
    .m_meta_cnp_share(),
    .m_meta_cnp_active(),
    .m_meta_cnp_seq(),
    .m_meta_sack_valid(meta_sack_valid),
    .m_meta_sack_beyond(meta_sack_beyond),
    .m_meta_sack_bitmap(meta_sack_bitmap),
    .m_meta_mac_control_valid(),
    .m_meta_mac_control_opcode(),
    .m_meta_pause_valid(meta_pause_valid),
    .m_meta_pause_time(meta_pause_time),
    .m_meta_pfc_valid(meta_pfc_valid),
    .m_meta_pfc_enable(meta_pfc_enable),
    .m_meta_pfc_quanta(meta_pfc_quanta)
);
/* verilator lint_on PINCONNECTEMPTY */

// A PAUSE or PFC frame the link partner sent (its source is not this NIC;
// golden Pipeline::received_pause) becomes a pacer command (SPEC.md §7.5),
// not an event: it waits at the classifier's input until every frame before
// it has passed the CN block and its rate transactions are in the command
// skid, so the pacer takes it in frame order.
wire meta_is_pause = meta_class == CLASS_FLOW_CONTROL && (meta_pause_valid || meta_pfc_valid)
                     && !(cfg_local_mac_valid && meta_eth_src == cfg_local_mac);
wire cls_meta_ready;
wire pause_go;
assign meta_ready = meta_is_pause ? pause_go : cls_meta_ready;
// PAUSE (802.3x) stops every priority with its one time.
wire [7:0]   pause_enable = meta_pfc_valid ? meta_pfc_enable[7:0] : 8'hFF;
wire [127:0] pause_quanta = meta_pfc_valid ? meta_pfc_quanta : {8{meta_pause_time}};
// The class-enable vector's top byte is reserved (IEEE 802.3 Annex 31D).
wire unused_pfc_enable = &{1'b0, meta_pfc_enable[15:8]};

// The record's side band: tick, sent by the host, its QP.
wire [63:0] meta_tick;
wire        meta_tx;
wire [23:0] meta_tx_qp;
assign {meta_tx_qp, meta_tx, meta_tick} = frame_fifo_mem[fifo_rd_reg[FIFO_INDEX_WIDTH-1:0]];

// Classify (SPEC.md §6.1) into an event for the CN block.
wire cls_valid;
wire [1:0] cls_kind;
wire [63:0] cls_time;
wire [23:0] cls_qp;
wire cls_ce;
wire [16:0] cls_len;
wire cls_ipv6;
wire cls_vlan_valid;
wire [11:0] cls_vlan_id;
wire [47:0] cls_eth_dst;
wire [47:0] cls_eth_src;
wire [127:0] cls_ip_src;
wire [127:0] cls_ip_dst;
wire [15:0] cls_udp_sport;
wire cls_src_qp_valid;
wire [23:0] cls_src_qp;
wire cls_extent_valid;
wire [15:0] cls_extent;
wire [23:0] cls_psn;
wire cls_ack_req;
wire cls_rc_req;
wire cls_msg_end;
wire cls_syndrome_valid;
wire [7:0] cls_syndrome;
wire cls_sack_valid;
wire cls_sack_beyond;
wire [63:0] cls_sack_bitmap;
wire         cls_ready;
wire         evt_valid;
wire         evt_ready;
wire [1:0]   evt_kind;
wire [63:0]  evt_time;
wire [23:0]  evt_qp;
wire         evt_ce;
wire [16:0]  evt_len;
wire         evt_ipv6;
wire         evt_vlan_valid;
wire [11:0]  evt_vlan_id;
wire [47:0]  evt_eth_dst;
wire [47:0]  evt_eth_src;
wire [127:0] evt_ip_src;
wire [127:0] evt_ip_dst;
wire [15:0]  evt_udp_sport;
wire         evt_src_qp_valid;
wire [23:0]  evt_src_qp;
wire         evt_extent_valid;
wire [15:0]  evt_extent;
wire [23:0]  evt_psn;
wire         evt_ack_req;
wire         evt_rc_req;
wire         evt_msg_end;
wire         evt_syndrome_valid;
wire [7:0]   evt_syndrome;
wire         evt_sack_valid;
wire         evt_sack_beyond;
wire [63:0]  evt_sack_bitmap;

roce_classify classify_inst (
    .clk(clk),
    .rst(rst),
    .cfg_local_mac_valid(cfg_local_mac_valid),
    .cfg_local_mac(cfg_local_mac),
    .s_meta_valid(meta_valid && !meta_is_pause),
    .s_meta_ready(cls_meta_ready),
    .s_meta_frame_class(meta_class),
    .s_meta_frame_len(meta_frame_len),
    .s_meta_vlan_count(meta_vlan_count),
    .s_meta_vlan_id(meta_vlan_id),
    .s_meta_eth_dst(meta_eth_dst),
    .s_meta_eth_src(meta_eth_src),
    .s_meta_ip_version(meta_ip_version),
    .s_meta_ecn(meta_ecn),
    .s_meta_ip_src(meta_ip_src),
    .s_meta_ip_dst(meta_ip_dst),
    .s_meta_udp_sport(meta_udp_sport),
    .s_meta_bth_valid(meta_bth_valid),
    .s_meta_opcode(meta_opcode),
    .s_meta_dest_qp(meta_dest_qp),
    .s_meta_ack_req(meta_ack_req),
    .s_meta_psn(meta_psn),
    .s_meta_deth_valid(meta_deth_valid),
    .s_meta_deth_src_qp(meta_deth_src_qp),
    .s_meta_cnp_valid(meta_cnp_valid),
    .s_meta_cnp_extent(meta_cnp_extent),
    .s_meta_aeth_valid(meta_aeth_valid),
    .s_meta_aeth_syndrome(meta_aeth_syndrome),
    .s_meta_sack_valid(meta_sack_valid),
    .s_meta_sack_beyond(meta_sack_beyond),
    .s_meta_sack_bitmap(meta_sack_bitmap),
    .s_meta_tick(meta_tick),
    .s_meta_tx(meta_tx),
    .s_meta_tx_qp(meta_tx_qp),
    .m_evt_valid(cls_valid),
    .m_evt_ready(cls_ready),
    .m_evt_kind(cls_kind),
    .m_evt_time(cls_time),
    .m_evt_qp(cls_qp),
    .m_evt_ce(cls_ce),
    .m_evt_len(cls_len),
    .m_evt_ipv6(cls_ipv6),
    .m_evt_vlan_valid(cls_vlan_valid),
    .m_evt_vlan_id(cls_vlan_id),
    .m_evt_eth_dst(cls_eth_dst),
    .m_evt_eth_src(cls_eth_src),
    .m_evt_ip_src(cls_ip_src),
    .m_evt_ip_dst(cls_ip_dst),
    .m_evt_udp_sport(cls_udp_sport),
    .m_evt_src_qp_valid(cls_src_qp_valid),
    .m_evt_src_qp(cls_src_qp),
    .m_evt_extent_valid(cls_extent_valid),
    .m_evt_extent(cls_extent),
    .m_evt_psn(cls_psn),
    .m_evt_ack_req(cls_ack_req),
    .m_evt_rc_req(cls_rc_req),
    .m_evt_msg_end(cls_msg_end),
    .m_evt_syndrome_valid(cls_syndrome_valid),
    .m_evt_syndrome(cls_syndrome),
    .m_evt_sack_valid(cls_sack_valid),
    .m_evt_sack_beyond(cls_sack_beyond),
    .m_evt_sack_bitmap(cls_sack_bitmap)
);


// The event, registered again on its way to the CN block. A time advance
// taken (below) is an event too, of kind KIND_TIME: the requester's clock
// between frames (SPEC.md §6.11), which no other part takes. Only with no
// classified event waiting (adv_open).
localparam EVT_WIDTH = 532 + 24 + 1 + 1 + 1 + 1 + 8 + 1 + 1 + 64;
wire evt_skid_busy;
wire adv_take;
roce_skid #(
    .WIDTH(EVT_WIDTH)
) evt_skid_inst (
    .clk(clk),
    .rst(rst),
    .s_valid(cls_valid || adv_take),
    .s_ready(cls_ready),
    .s_data(cls_valid
        ? {cls_kind, cls_time, cls_qp, cls_ce, cls_len, cls_ipv6, cls_vlan_valid, cls_vlan_id, cls_eth_dst, cls_eth_src, cls_ip_src, cls_ip_dst, cls_udp_sport, cls_src_qp_valid, cls_src_qp, cls_extent_valid, cls_extent, cls_psn, cls_ack_req, cls_rc_req, cls_msg_end, cls_syndrome_valid, cls_syndrome, cls_sack_valid, cls_sack_beyond, cls_sack_bitmap}
        : {KIND_TIME, s_adv_time, {(EVT_WIDTH - 2 - 64){1'b0}}}),
    .m_valid(evt_valid),
    .m_ready(evt_ready),
    .m_data({evt_kind, evt_time, evt_qp, evt_ce, evt_len, evt_ipv6, evt_vlan_valid, evt_vlan_id, evt_eth_dst, evt_eth_src, evt_ip_src, evt_ip_dst, evt_udp_sport, evt_src_qp_valid, evt_src_qp, evt_extent_valid, evt_extent, evt_psn, evt_ack_req, evt_rc_req, evt_msg_end, evt_syndrome_valid, evt_syndrome, evt_sack_valid, evt_sack_beyond, evt_sack_bitmap}),
    .busy(evt_skid_busy)
);

wire meta_taken = meta_valid && meta_ready;

always @(posedge clk) begin
    if (beat_taken) begin
        if (frame_start_reg) begin
            frame_fifo_mem[fifo_wr_reg[FIFO_INDEX_WIDTH-1:0]] <= s_axis_tuser[89:1];
            fifo_wr_reg <= fifo_wr_reg + 1'b1;
        end
        frame_start_reg <= s_axis_tlast;
    end
    if (meta_taken) begin
        fifo_rd_reg <= fifo_rd_reg + 1'b1;
    end
    if (rst) begin
        fifo_wr_reg <= 0;
        fifo_rd_reg <= 0;
        frame_start_reg <= 1'b1;
    end
end

wire         rate_valid;
wire         rate_ready;
wire [63:0]  rate_time;
wire [23:0]  rate_qp;
wire [31:0]  rate_rate;
wire [31:0]  rate_target;
wire [15:0]  rate_alpha;
wire [1:0]   rate_stage;
wire [1:0]   rate_trigger;
wire         rate_sent;
wire [16:0]  rate_len;
wire         cn_busy;
wire         timer_valid;
wire [63:0]  timer_time;
wire         pacer_next_valid;
wire [63:0]  pacer_next_time;
wire         pacer_busy;
wire         pacer_active;
wire         pacer_ready;
// The QP context goes to the CN block (remote QP) and the pacer (priority)
// at once.
wire         cn_qpctx_ready, prio_ready;
assign s_qpctx_ready = cn_qpctx_ready && prio_ready;

roce_cn #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .QP_COUNT(QP_COUNT),
    .ROCE_UDP_PORT(ROCE_UDP_PORT)
) cn_inst (
    .clk(clk),
    .rst(rst),
    .cfg(cfg),
    .s_qpctx_valid(s_qpctx_valid && prio_ready),
    .s_qpctx_ready(cn_qpctx_ready),
    .s_qpctx_local(s_qpctx_local),
    .s_qpctx_remote(s_qpctx_remote),
    .s_qpctx_psn_valid(s_qpctx_psn_valid),
    .s_qpctx_psn(s_qpctx_psn),
    .s_evt_valid(evt_valid),
    .s_evt_ready(evt_ready),
    .s_evt_kind(evt_kind),
    .s_evt_time(evt_time),
    .s_evt_qp(evt_qp),
    .s_evt_ce(evt_ce),
    .s_evt_len(evt_len),
    .s_evt_ipv6(evt_ipv6),
    .s_evt_vlan_valid(evt_vlan_valid),
    .s_evt_vlan_id(evt_vlan_id),
    .s_evt_eth_dst(evt_eth_dst),
    .s_evt_eth_src(evt_eth_src),
    .s_evt_ip_src(evt_ip_src),
    .s_evt_ip_dst(evt_ip_dst),
    .s_evt_udp_sport(evt_udp_sport),
    .s_evt_src_qp_valid(evt_src_qp_valid),
    .s_evt_src_qp(evt_src_qp),
    .s_evt_extent_valid(evt_extent_valid),
    .s_evt_extent(evt_extent),
    .s_evt_psn(evt_psn),
    .s_evt_ack_req(evt_ack_req),
    .s_evt_rc_req(evt_rc_req),
    .s_evt_msg_end(evt_msg_end),
    .s_evt_syndrome_valid(evt_syndrome_valid),
    .s_evt_syndrome(evt_syndrome),
    .s_evt_sack_valid(evt_sack_valid),
    .s_evt_sack_beyond(evt_sack_beyond),
    .s_evt_sack_bitmap(evt_sack_bitmap),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser),
    .m_rate_valid(rate_valid),
    .m_rate_ready(rate_ready),
    .m_rate_time(rate_time),
    .m_rate_qp(rate_qp),
    .m_rate_rate(rate_rate),
    .m_rate_target(rate_target),
    .m_rate_alpha(rate_alpha),
    .m_rate_stage(rate_stage),
    .m_rate_trigger(rate_trigger),
    .m_rate_sent(rate_sent),
    .m_rate_len(rate_len),
    .m_retx_valid(m_retx_valid),
    .m_retx_ready(m_retx_ready),
    .m_retx_time(m_retx_time),
    .m_retx_qp(m_retx_qp),
    .m_retx_psn(m_retx_psn),
    .m_retx_count(m_retx_count),
    .m_retx_cause(m_retx_cause),
    .m_retx_mask(m_retx_mask),
    .timer_valid(timer_valid),
    .timer_time(timer_time),
    .busy(cn_busy)
);

// The pacer flushes, and time advances, only once every frame before has
// reached it; an advance is a pacer command with neither rate nor packet,
// queued behind the RP's transactions, and at once a time event to the CN
// block (above).
// The CN block's idleness, registered so that no path runs from its state
// to the pacer's FSM (through flush) in one cycle. It is a cycle late only
// in saying "idle": the block can only become busy with an event the skid
// held the cycle before, which clears it.
reg cn_quiet_reg = 1'b0;
always @(posedge clk) begin
    cn_quiet_reg <= !cn_busy && !evt_skid_busy;
    if (rst) begin
        cn_quiet_reg <= 1'b0;
    end
end
wire upstream_idle = fifo_empty && !cls_valid && !evt_skid_busy && cn_quiet_reg;
wire adv_open = upstream_idle && !rate_valid;
wire adv_go = s_adv_valid && adv_open && cls_ready;
// A pause waits for the classifier, the CN block and the RP's output only
// (its own record holds the side-band FIFO, and the frames after it wait).
assign pause_go = meta_valid && meta_is_pause && !cls_valid && !evt_skid_busy && cn_quiet_reg && !rate_valid
                  && cmd_ready;
wire cmd_ready;
// Taken by the pacer's command skid and the event skid at once (the event
// skid is empty here: adv_open).
assign s_adv_ready = cmd_ready && adv_open && cls_ready;
assign adv_take = adv_go && cmd_ready;
assign rate_ready = cmd_ready;

wire         cmd_valid;
wire [63:0]  cmd_time;
wire [23:0]  cmd_qp;
wire         cmd_rate_valid;
wire [31:0]  cmd_rate;
wire         cmd_send;
wire [16:0]  cmd_len;
wire         cmd_pause;
wire [7:0]   cmd_pause_enable;
wire [127:0] cmd_pause_quanta;
wire         cmd_skid_busy;
roce_skid #(
    .WIDTH(64 + 24 + 1 + 32 + 1 + 17 + 1 + 8 + 128)
) cmd_skid_inst (
    .clk(clk),
    .rst(rst),
    .s_valid(rate_valid || adv_go || pause_go),
    .s_ready(cmd_ready),
    .s_data({rate_valid ? rate_time : (pause_go ? meta_tick : s_adv_time), rate_qp,
             rate_valid && rate_trigger != TRIGGER_SENT, rate_rate, rate_valid && rate_sent, rate_len,
             !rate_valid && pause_go, pause_enable, pause_quanta}),
    .m_valid(cmd_valid),
    .m_ready(pacer_ready),
    .m_data({cmd_time, cmd_qp, cmd_rate_valid, cmd_rate, cmd_send, cmd_len, cmd_pause, cmd_pause_enable,
             cmd_pause_quanta}),
    .busy(cmd_skid_busy)
);

roce_pacer #(
    .QP_COUNT(QP_COUNT),
    .SLOT_COUNT(SLOT_COUNT),
    .SLOT_SHIFT(SLOT_SHIFT),
    .DESC_COUNT(DESC_COUNT)
) pacer_inst (
    .clk(clk),
    .rst(rst),
    .cfg(cfg),
    .s_cmd_valid(cmd_valid),
    .s_cmd_ready(pacer_ready),
    .s_cmd_time(cmd_time),
    .s_cmd_qp(cmd_qp),
    .s_cmd_rate_valid(cmd_rate_valid),
    .s_cmd_rate(cmd_rate),
    .s_cmd_send(cmd_send),
    .s_cmd_len(cmd_len),
    .s_cmd_pause(cmd_pause),
    .s_cmd_pause_enable(cmd_pause_enable),
    .s_cmd_pause_quanta(cmd_pause_quanta),
    .s_prio_valid(s_qpctx_valid && cn_qpctx_ready),
    .s_prio_ready(prio_ready),
    .s_prio_qp(s_qpctx_local),
    .s_prio_value(s_qpctx_priority),
    .flush(flush && upstream_idle && !rate_valid && !cmd_skid_busy),
    .m_rel_valid(m_rel_valid),
    .m_rel_ready(m_rel_ready),
    .m_rel_time(m_rel_time),
    .m_rel_qp(m_rel_qp),
    .m_rel_len(m_rel_len),
    .m_rel_drop(m_rel_drop),
    .busy(pacer_busy),
    .active(pacer_active),
    .next_busy_valid(pacer_next_valid),
    .next_busy_time(pacer_next_time)
);

// The NIC's next work: the pacer's next slot or the requester's next timer,
// whichever is first (from registers of both).
assign next_busy_valid = pacer_next_valid || timer_valid;
assign next_busy_time = pacer_next_valid && (!timer_valid || pacer_next_time <= timer_time) ? pacer_next_time
                        : timer_time;

assign mon_rate_fire = rate_valid && rate_ready;
assign mon_rate_time = rate_time;
assign mon_rate_qp = rate_qp;
assign mon_rate_rate = rate_rate;
assign mon_rate_target = rate_target;
assign mon_rate_alpha = rate_alpha;
assign mon_rate_stage = rate_stage;
assign mon_rate_trigger = rate_trigger;
assign mon_rate_sent = rate_sent;
assign mon_rate_len = rate_len;

assign active = !frame_start_reg || !upstream_idle || rate_valid || cmd_skid_busy || pacer_active;
assign busy = active || pacer_busy;

endmodule

`resetall

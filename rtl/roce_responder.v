// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "metaroce_cfg.vh"
`include "reply_addr.vh"

/*
 * RC responder (SPEC.md §6.10): received RC SEND and WRITE requests in,
 * RoCEv2 ACKs and NAKs out as whole frames, by go-back-N (rxe_resp.c's
 * rules). Per QP it keeps the expected PSN, the MSN, whether a NAK was
 * sent since the last in-order packet and the in-order packets since the
 * last ACK. With cfg ack_mode other than rocev2 every event is taken and
 * dropped.
 *
 * Pipelined as the notification point (cnp_notify.v): an event a cycle.
 * Stage A takes the event and reads its QP's RAM word; stage R registers
 * the word (forwarded from a write of the same QP in the read's cycle or
 * from W's word; B's updated word is registered beside it and selected at
 * B, so the decision that makes it meets no multiplexer of the RAM's
 * path); stage B decides and updates the word, and stage W writes it back
 * from a register. B never waits: an ACK or NAK it decides on is queued
 * (REQ_DEPTH requests) for the frame builder (roce_reply_frame.v), which
 * runs beside the pipeline: the frame with the ICRC's partial sums and
 * the IPv4 header's sum of words, then the ICRC and IPv4 checksum (2
 * cycles), and ceil(len / KEEP_WIDTH) output beats. The input is held,
 * from registers alone, while the queue has no room for a request from
 * each event in R and B and from one more.
 * Per-QP state is one RAM word per QP, cleared by a sweep after reset
 * (QP_COUNT cycles with s_evt_ready low).
 *
 * | port                  | width      | meaning                                       |
 * |-----------------------|------------|-----------------------------------------------|
 * | cfg                   | CFG_WIDTH  | registers (ack_mode, ack_coalesce_pkts,       |
 * |                       |            | ack_dscp, ack_prio), held constant            |
 * | s_qpctx_local/remote  | 24/24      | QP context load (local QP -> remote QP)       |
 * | s_qpctx_psn_valid/psn | 1/24       | ... and its first expected PSN (rq_psn)       |
 * | s_evt_time            | 64         | tick (ns) of the packet                       |
 * | s_evt_qp              | 24         | local QP (BTH DestQP)                         |
 * | s_evt_reply_addr      | 382        | the packet's addresses the ACK answers with   |
 * |                       |            | (rtl/reply_addr.vh), carried whole to the     |
 * |                       |            | builder                                       |
 * | s_evt_psn             | 24         | BTH PSN                                       |
 * | s_evt_ack_req         | 1          | BTH AckReq                                    |
 * | s_evt_msg_end         | 1          | last or only packet of a message              |
 * | m_axis_t*             | DATA_WIDTH | ACK/NAK frames (no FCS)                       |
 * | m_axis_tuser          | 64         | emit tick (the packet's), on every beat       |
 * | busy                  | 1          | an event or frame is still in the block       |
 *
 * Only received-data events of RC requests (opcodes 0x00-0x0B, 0x16,
 * 0x17) are presented here (roce_cn.v decides).
 *
 * RAM word (RS_ENTRY_WIDTH bits): remote_valid, remote_qp 24, psn_valid,
 * epsn 24, msn 24, nak_sent, unacked 8.
 */
module roce_responder #(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH/8,
    parameter QP_COUNT = 1024,
    parameter [15:0] ROCE_UDP_PORT = 16'd4791
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [`CFG_WIDTH-1:0]  cfg,

    input  wire                   s_qpctx_valid,
    output wire                   s_qpctx_ready,
    input  wire [23:0]            s_qpctx_local,
    input  wire [23:0]            s_qpctx_remote,
    input  wire                   s_qpctx_psn_valid,
    input  wire [23:0]            s_qpctx_psn,

    input  wire                   s_evt_valid,
    output wire                   s_evt_ready,
    input  wire [63:0]            s_evt_time,
    input  wire [23:0]            s_evt_qp,
    input  wire [`REPLY_ADDR_WIDTH-1:0] s_evt_reply_addr,
    input  wire [23:0]            s_evt_psn,
    input  wire                   s_evt_ack_req,
    input  wire                   s_evt_msg_end,

    output wire [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire [63:0]            m_axis_tuser,

    output wire                   busy
);

`include "roce_bytes.vh"
// ACK_MODE_*, OPCODE_RC_ACK, SYNDROME_* (SPEC.md §6.10: the ACK's credit
// count 31 is "invalid", rxe's AETH_ACK_UNLIMITED).
`include "metaroce_defs.vh"

// The registers this module reads: slices of the cfg bus (rtl/metaroce_cfg.vh).
wire [`CFG_ACK_MODE_W-1:0] cfg_ack_mode = cfg[`CFG_ACK_MODE];
wire [`CFG_ACK_COALESCE_PKTS_W-1:0] cfg_ack_coalesce = cfg[`CFG_ACK_COALESCE_PKTS];
wire [`CFG_ACK_DSCP_W-1:0] cfg_ack_dscp = cfg[`CFG_ACK_DSCP];
wire [`CFG_ACK_PCP_W-1:0] cfg_ack_pcp = cfg[`CFG_ACK_PCP];
// The other modules' registers.
wire unused_cfg = &{1'b0, cfg};

localparam QP_INDEX_WIDTH = QP_COUNT > 1 ? $clog2(QP_COUNT) : 1;
localparam RS_ENTRY_WIDTH = 1 + 24 + 1 + 24 + 24 + 1 + 8;
// The AETH after the BTH.
localparam AETH_BYTES = 4;

// Illegal parameters stop elaboration: the instance of a module that does
// not exist names the rule (Icarus Verilog 11 has no elaboration $error).
// The frame builder (roce_reply_frame.v) checks DATA_WIDTH.
generate
    if (QP_COUNT < 1 || QP_COUNT > (1 << 24)) begin : g_bad_qp_count
        roce_responder_QP_COUNT_must_be_1_to_2_pow_24 bad_qp_count();
    end
endgenerate

reg init_reg = 1'b1, init_next;
reg [QP_INDEX_WIDTH-1:0] init_addr_reg = 0, init_addr_next;

// The event, packed at the input and unpacked at stage B: R holds it while
// its QP's RAM word is read, B while the word is used.
localparam EVT_WIDTH = 64 + QP_INDEX_WIDTH + `REPLY_ADDR_WIDTH + 24 + 1 + 1;
wire [EVT_WIDTH-1:0] s_evt_word = {s_evt_time, s_evt_qp[QP_INDEX_WIDTH-1:0], s_evt_reply_addr, s_evt_psn,
    s_evt_ack_req, s_evt_msg_end};
reg                 r_valid_reg = 1'b0;
reg [EVT_WIDTH-1:0] r_evt_reg;
wire [QP_INDEX_WIDTH-1:0] r_qp = r_evt_reg[EVT_WIDTH-65 -: QP_INDEX_WIDTH];
wire [23:0]               r_psn = r_evt_reg[25:2];
reg                 b_valid_reg = 1'b0;
reg [EVT_WIDTH-1:0] b_evt_reg;
// The event's PSN + 1, from R: the expected PSN after it if in order.
reg [23:0]          b_psn_next_reg;
wire [63:0]  b_time;
wire [QP_INDEX_WIDTH-1:0] b_qp;
wire [`REPLY_ADDR_WIDTH-1:0] b_reply_addr;
wire [23:0]  b_psn;
wire         b_ack_req;
wire         b_msg_end;
assign {b_time, b_qp, b_reply_addr, b_psn, b_ack_req, b_msg_end} = b_evt_reg;
// The RAM word, packed here and unpacked below, nowhere else.
function [RS_ENTRY_WIDTH-1:0] rs_entry(
    input        remote_valid,
    input [23:0] remote_qp,
    input        psn_valid,
    input [23:0] epsn,
    input [23:0] msn,
    input        nak_sent,
    input [7:0]  unacked
);
    rs_entry = {remote_valid, remote_qp, psn_valid, epsn, msn, nak_sent, unacked};
endfunction

// Per-QP state (qp_rmw_pipe.v): the input reads, R sees the word on
// `entry` (forwarded from the write of the read's cycle, or from W's
// word) and registers it; B's updated word is registered beside it when
// B's event is of R's QP, and B takes that one (b_fwd_reg).
wire [RS_ENTRY_WIDTH-1:0] entry;
reg  [RS_ENTRY_WIDTH-1:0] b_entry_reg;
reg                       b_fwd_reg = 1'b0;
reg  [RS_ENTRY_WIDTH-1:0] b_fwd_word_reg;
// W: B's event's updated word, written back from a register.
reg                       w_valid_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0]  w_qp_reg;
reg  [RS_ENTRY_WIDTH-1:0] w_word_reg;
reg                       wr_en;
reg [QP_INDEX_WIDTH-1:0]  wr_addr;
reg [RS_ENTRY_WIDTH-1:0]  wr_data;
// ack_coalesce_pkts - 1 (signed: -1 when 0), registered from the constant
// cfg: an in-order packet is due an ACK when its QP's unacked count before
// it reaches this.
reg signed [8:0]          coalesce_limit_reg = 9'sd0;

// B's word: as read, or B's own last word when its event was of this QP.
wire        ent_remote_valid;
wire [23:0] ent_remote_qp;
wire        ent_psn_valid;
wire [23:0] ent_epsn;
wire [23:0] ent_msn;
wire        ent_nak_sent;
wire [7:0]  ent_unacked;
assign {ent_remote_valid, ent_remote_qp, ent_psn_valid, ent_epsn, ent_msn, ent_nak_sent, ent_unacked} =
    b_fwd_reg ? b_fwd_word_reg : b_entry_reg;

// ACK/NAK requests from stage B, queued for the builder: B never waits, and
// the input is held while the events in R and B could overfill the queue.
// A request is packed here and unpacked below, nowhere else.
localparam REQ_WIDTH = 64 + `REPLY_ADDR_WIDTH + 24 + 24 + 1 + 24;
localparam REQ_DEPTH = 4;
wire [REQ_WIDTH-1:0] req_head;
wire [63:0]  req_time;
wire [`REPLY_ADDR_WIDTH-1:0] req_reply_addr;
wire [23:0]  req_dest_qp;
wire [23:0]  req_psn;
wire         req_nak;
wire [23:0]  req_msn;
assign {req_time, req_reply_addr, req_dest_qp, req_psn, req_nak, req_msn} = req_head;
// The frame builder (frame_inst, below) takes the queue's head when idle.
wire         frame_idle;

// Stage B's decision (SPEC.md §6.10 steps 1-6). Without psn_valid the
// packet's PSN is the expected one (step 2), so the packet is in order.
wire [23:0] psn_diff = b_psn - ent_epsn;
wire        in_order = !ent_psn_valid || b_psn == ent_epsn;
wire        ahead = !in_order && !psn_diff[23];
wire        duplicate = !in_order && psn_diff[23];
// Only the sign of the difference matters (rxe's psn_compare).
wire        unused_psn_diff = &{1'b0, psn_diff[22:0]};
// unacked + 1 >= ack_coalesce_pkts.
wire        coalesce_due = $signed({1'b0, ent_unacked}) >= coalesce_limit_reg;
wire        ack_in_order = b_ack_req || coalesce_due;
// With no remote QP, nothing (step 1).
wire        send = b_valid_reg && ent_remote_valid && (in_order ? ack_in_order : (ahead ? !ent_nak_sent : 1'b1));
wire [23:0] msn_after = in_order && b_msg_end ? ent_msn + 24'd1 : ent_msn;
// The AETH PSN: the packet's (in order), the expected one (NAK), the last
// received (duplicate).
wire [23:0] reply_psn = in_order ? b_psn : (ahead ? ent_epsn : ent_epsn - 24'd1);
wire [7:0]  unacked_after = in_order ? (ack_in_order ? 8'd0 : ent_unacked + 8'd1)
                                     : (duplicate ? 8'd0 : ent_unacked);
wire        nak_after = in_order ? 1'b0 : (ahead || ent_nak_sent);
// B's word after its event (unchanged without a remote QP).
wire [RS_ENTRY_WIDTH-1:0] b_word = ent_remote_valid
    ? rs_entry(1'b1, ent_remote_qp, 1'b1, in_order ? b_psn_next_reg : ent_epsn, msn_after, nak_after,
               unacked_after)
    : rs_entry(1'b0, ent_remote_qp, ent_psn_valid, ent_epsn, ent_msn, ent_nak_sent, ent_unacked);
wire                      fwd_from_b = b_valid_reg && b_qp == r_qp;
wire                      fwd_from_w = w_valid_reg && w_qp_reg == r_qp;

qp_rmw_pipe #(
    .WIDTH(RS_ENTRY_WIDTH),
    .DEPTH(QP_COUNT),
    .ADDR_WIDTH(QP_INDEX_WIDTH)
) state_inst (
    .clk(clk),
    // A reads the input's QP every cycle: R, which never waits, uses the
    // word only after an event was taken, and no logic stands before the
    // block RAM's read enable.
    .rd_en(1'b1),
    .rd_addr(s_evt_qp[QP_INDEX_WIDTH-1:0]),
    .entry(entry),
    // W's word being written, if of R's QP (B's, newer, is taken at B).
    .newer_valid(fwd_from_w),
    .newer(w_word_reg),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data)
);

wire [REQ_WIDTH-1:0] req_in = {b_time, b_reply_addr, ent_remote_qp, reply_psn, ahead, msn_after};
// The builder takes the queue's head when idle (registers only); the
// input waits for room for a request from each event in R and B and from
// one more.
wire        req_pop;
wire        req_room;
wire        req_pending;

reply_req_queue #(
    .WIDTH(REQ_WIDTH),
    .DEPTH(REQ_DEPTH)
) req_queue_inst (
    .clk(clk),
    .rst(rst),
    .s_write(b_valid_reg),
    .s_commit(send),
    .s_req(req_in),
    .s_pending({1'b0, r_valid_reg} + {1'b0, b_valid_reg}),
    .s_room(req_room),
    .m_take(frame_idle),
    .m_start(req_pop),
    .m_head(req_head),
    .m_pending(req_pending)
);

assign s_qpctx_ready = !init_reg && !r_valid_reg && !b_valid_reg && !w_valid_reg;
assign s_evt_ready = !init_reg && !s_qpctx_valid && req_room;
assign busy = init_reg || r_valid_reg || b_valid_reg || w_valid_reg || req_pending || !frame_idle;
wire   accept = s_evt_valid && s_evt_ready;
// Events are taken and dropped unless ack_mode is rocev2, and for QPs past
// the table.
wire   accept_in_range = accept && cfg_ack_mode == ACK_MODE_ROCEV2 && {8'd0, s_evt_qp} < QP_COUNT;

// The ACK's BTH and AETH (SPEC.md §6.10), in wire order.
wire [31:0]  aeth = {be24(req_msn), req_nak ? SYNDROME_NAK_PSN : SYNDROME_ACK};
wire [95:0]  bth = {be24(req_psn), 8'h00, be24(req_dest_qp), 8'h00, 16'hFFFF, 8'h00, OPCODE_RC_ACK};

roce_reply_frame #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .ROCE_UDP_PORT(ROCE_UDP_PORT),
    .EXT_BYTES(AETH_BYTES)
) frame_inst (
    .clk(clk),
    .rst(rst),
    .s_start(req_pop),
    .idle(frame_idle),
    .s_time(req_time),
    .s_reply_addr(req_reply_addr),
    .s_dscp(cfg_ack_dscp),
    .s_pcp(cfg_ack_pcp),
    .s_bth(bth),
    .s_ext_valid(1'b1),
    .s_ext(aeth),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser)
);

// The RAM's writes: the sweep, a context load, W's write-back.
always @* begin
    init_next = init_reg;
    init_addr_next = init_addr_reg;
    wr_en = 1'b0;
    wr_addr = w_qp_reg;
    wr_data = {RS_ENTRY_WIDTH{1'b0}};

    if (init_reg) begin
        wr_en = 1'b1;
        wr_addr = init_addr_reg;
        init_addr_next = init_addr_reg + 1;
        if ({{(32-QP_INDEX_WIDTH){1'b0}}, init_addr_reg} == QP_COUNT - 1) begin
            init_next = 1'b0;
        end
    end else if (s_qpctx_valid && s_qpctx_ready) begin
        // Loading a context starts the QP afresh (with rq_psn, expecting it).
        if ({8'd0, s_qpctx_local} < QP_COUNT) begin
            wr_en = 1'b1;
            wr_addr = s_qpctx_local[QP_INDEX_WIDTH-1:0];
            wr_data = rs_entry(1'b1, s_qpctx_remote, s_qpctx_psn_valid, s_qpctx_psn_valid ? s_qpctx_psn : 24'd0,
                               24'd0, 1'b0, 8'd0);
        end
    end else if (w_valid_reg) begin
        wr_en = 1'b1;
        wr_data = w_word_reg;
    end
end

always @(posedge clk) begin
    init_reg <= init_next;
    init_addr_reg <= init_addr_next;
    coalesce_limit_reg <= $signed({1'b0, cfg_ack_coalesce}) - 9'sd1;

    // R takes the event; B takes R's with its word (W's being written, if
    // of the same QP) and B's updated word beside it; W takes B's.
    r_valid_reg <= accept_in_range;
    // R never holds, so its event register loads every cycle (r_valid_reg
    // says whether it holds one): its enables wait for no handshake.
    r_evt_reg <= s_evt_word;
    b_valid_reg <= r_valid_reg;
    b_evt_reg <= r_evt_reg;
    b_psn_next_reg <= r_psn + 24'd1;
    b_entry_reg <= entry;
    b_fwd_reg <= fwd_from_b;
    b_fwd_word_reg <= b_word;
    w_valid_reg <= b_valid_reg;
    w_qp_reg <= b_qp;
    w_word_reg <= b_word;

    if (rst) begin
        init_reg <= 1'b1;
        init_addr_reg <= 0;
        r_valid_reg <= 1'b0;
        b_valid_reg <= 1'b0;
        b_fwd_reg <= 1'b0;
        w_valid_reg <= 1'b0;
    end
end

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
always @(posedge clk) begin
    if (!rst) begin
        // A context load waits for the pipeline to drain (one RAM write port).
        assert (!(s_qpctx_valid && s_qpctx_ready && (r_valid_reg || b_valid_reg || w_valid_reg)))
        else metaroce_assertion_failed("roce_responder: a context load beside a write-back");
    end
end
`endif

endmodule

`resetall

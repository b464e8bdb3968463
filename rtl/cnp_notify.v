// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "metaroce_cfg.vh"
`include "reply_addr.vh"

/*
 * Notification point: received RoCE data packets in, CNPs out as whole
 * frames (SPEC.md §6.3). At most one CNP per QP per cfg_cnp_interval ns;
 * in MetaRoCE mode the CNP carries the CE extent of the packets since the
 * previous one.
 *
 * Pipelined: an event a cycle. Stage A takes the event and reads its QP's
 * RAM word; stage R registers the word (forwarded from a write of the same
 * QP in the read's cycle or in R's, or from B's word); stage B updates it
 * and stage W writes it back (the CNP decision and the word it picks are
 * a register apart). B never waits: a CNP it decides on is queued (REQ_DEPTH
 * requests) for the CNP builder, which runs beside the pipeline: the
 * extent division here (15 cycles, MetaRoCE only), then the reply-frame
 * builder (roce_reply_frame.v, which takes the request when it is popped
 * and the reserved bytes when the extent is known): the frame with the
 * ICRC's partial sums, then the ICRC and IPv4 checksum (2 cycles), and
 * ceil(len / KEEP_WIDTH) output beats. The input is held, from registers
 * alone, while the queue has no room for a request from each event in R
 * and B and from one more.
 * Per-QP state is one RAM word per QP, cleared by a sweep after reset
 * (QP_COUNT cycles with s_evt_ready low).
 *
 * | port                | width      | meaning                                        |
 * |---------------------|------------|------------------------------------------------|
 * | s_evt_time          | 64         | tick (ns) of the packet; never decreases        |
 * | s_evt_qp            | 24         | local QP (BTH DestQP)                           |
 * | s_evt_ce            | 1          | ECN = CE                                        |
 * | s_evt_reply_addr    | 382        | the packet's addresses the CNP answers with     |
 * |                     |            | (rtl/reply_addr.vh), carried whole to the       |
 * |                     |            | builder                                         |
 * | s_evt_src_qp_valid  | 1          | DETH source QP present (UD): names the remote   |
 * | s_qpctx_local/remote| 24/24      | QP context table write (local QP -> remote QP)  |
 * | m_axis_t*           | DATA_WIDTH | CNP frames (no FCS)                             |
 * | m_axis_tuser        | 64         | emit tick of the CNP, on every beat             |
 * | busy                | 1          | an event or CNP is still in the block           |
 *
 * RAM word (NP_ENTRY_WIDTH bits): remote_valid, remote_qp 24, cnp_sent,
 * last_cnp 64, pkts 16, ce_pkts 16.
 */
module cnp_notify #(
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

    input  wire                   s_evt_valid,
    output wire                   s_evt_ready,
    input  wire [63:0]            s_evt_time,
    input  wire [23:0]            s_evt_qp,
    input  wire                   s_evt_ce,
    input  wire [`REPLY_ADDR_WIDTH-1:0] s_evt_reply_addr,
    input  wire                   s_evt_src_qp_valid,
    input  wire [23:0]            s_evt_src_qp,

    output wire [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire [63:0]            m_axis_tuser,

    output wire                   busy
);

`include "metaroce_defs.vh"
`include "roce_bytes.vh"

// The registers this module reads: slices of the cfg bus (rtl/metaroce_cfg.vh).
wire cfg_metaroce = cfg[`CFG_METAROCE];
wire [`CFG_CNP_INTERVAL_NS_W-1:0] cfg_cnp_interval = cfg[`CFG_CNP_INTERVAL_NS];
wire [`CFG_CNP_DSCP_W-1:0] cfg_cnp_dscp = cfg[`CFG_CNP_DSCP];
wire [`CFG_CNP_PCP_W-1:0] cfg_cnp_pcp = cfg[`CFG_CNP_PCP];
// The other modules' registers.
wire unused_cfg = &{1'b0, cfg};

localparam QP_INDEX_WIDTH = QP_COUNT > 1 ? $clog2(QP_COUNT) : 1;
localparam NP_ENTRY_WIDTH = 1 + 24 + 1 + 64 + 16 + 16;
// The CNP's 16 reserved bytes after the BTH (SPEC.md §6.3).
localparam RESERVED_BYTES = 16;
localparam EXTENT_BITS = 15;

// Illegal parameters stop elaboration: the instance of a module that does
// not exist names the rule (Icarus Verilog 11 has no elaboration $error).
// The frame builder (roce_reply_frame.v) checks DATA_WIDTH.
generate
    if (QP_COUNT < 1 || QP_COUNT > (1 << 24)) begin : g_bad_qp_count
        cnp_notify_QP_COUNT_must_be_1_to_2_pow_24 bad_qp_count();
    end
endgenerate

reg init_reg = 1'b1, init_next;
reg [QP_INDEX_WIDTH-1:0] init_addr_reg = 0, init_addr_next;

// The event, packed at the input and unpacked at stage B: R holds it while
// its QP's RAM word is read, B while the word is used.
localparam EVT_WIDTH = 64 + QP_INDEX_WIDTH + 1 + `REPLY_ADDR_WIDTH + 1 + 24;
wire [EVT_WIDTH-1:0] s_evt_word = {s_evt_time, s_evt_qp[QP_INDEX_WIDTH-1:0], s_evt_ce, s_evt_reply_addr,
    s_evt_src_qp_valid, s_evt_src_qp};
reg                 r_valid_reg = 1'b0;
reg [EVT_WIDTH-1:0] r_evt_reg;
wire [QP_INDEX_WIDTH-1:0] r_qp = r_evt_reg[EVT_WIDTH-65 -: QP_INDEX_WIDTH];
wire [63:0]               r_time = r_evt_reg[EVT_WIDTH-1 -: 64];
reg                 b_valid_reg = 1'b0;
reg [EVT_WIDTH-1:0] b_evt_reg;
// The event's tick minus the CNP interval (signed), from R: B's interval
// check is then one comparison with the word's last CNP tick.
reg [64:0]          b_interval_start_reg;
// Its high half plus one (34 bits, signed): with it the check splits into
// three short carry chains side by side (high <, high <=, low <=) instead
// of one 65-bit chain, and no two of them compare the same pair of
// operands (Yosys would merge a < and a <= of the same operands into one
// chain and an equality tree).
reg [33:0]          b_interval_high_next_reg;
wire [63:0]  b_time;
wire [QP_INDEX_WIDTH-1:0] b_qp;
wire         b_ce;
wire [`REPLY_ADDR_WIDTH-1:0] b_reply_addr;
wire         b_src_qp_valid;
wire [23:0]  b_src_qp;
assign {b_time, b_qp, b_ce, b_reply_addr, b_src_qp_valid, b_src_qp} = b_evt_reg;
// The RAM word, packed here and unpacked below, nowhere else.
function [NP_ENTRY_WIDTH-1:0] np_entry(
    input        remote_valid,
    input [23:0] remote_qp,
    input        cnp_sent,
    input [63:0] last_cnp,
    input [15:0] pkts,
    input [15:0] ce_pkts
);
    np_entry = {remote_valid, remote_qp, cnp_sent, last_cnp, pkts, ce_pkts};
endfunction

// Per-QP state (qp_rmw_pipe.v): the input reads, R sees the word on
// `entry` (forwarded from the write of the read's cycle) and registers it,
// forwarded again from B's word or W's write (of earlier events); B uses
// it, W writes it back (the instance stands below, after B's words). No
// logic sits between the RAM's output and a register but the forwarding,
// the RAM's word last in it.
wire [NP_ENTRY_WIDTH-1:0] entry;
reg  [NP_ENTRY_WIDTH-1:0] b_entry_reg;
// When B's event sent a CNP for the QP of the event behind it, R forwards
// the word as if it had not (no CNP decision on the path) and these make
// it the sent word at B: the CNP's tick, counts cleared.
reg                      b_fwd_sent_reg = 1'b0;
reg  [63:0]              b_sent_time_reg;
// W: B's event's word, counted or sent (both registered, and the choice),
// written back; the decision's fanout ends in these registers.
reg                      w_valid_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0] w_qp_reg;
reg                      w_send_reg;
reg  [NP_ENTRY_WIDTH-1:0] w_counted_reg;
reg  [NP_ENTRY_WIDTH-1:0] w_sent_reg;
wire [NP_ENTRY_WIDTH-1:0] w_word = w_send_reg ? w_sent_reg : w_counted_reg;
reg                      wr_en;
reg [QP_INDEX_WIDTH-1:0] wr_addr;
reg [NP_ENTRY_WIDTH-1:0] wr_data;

wire        read_remote_valid;
wire [23:0] read_remote_qp;
wire        read_cnp_sent;
wire [63:0] read_last_cnp;
wire [15:0] read_pkts;
wire [15:0] read_ce_pkts;
assign {read_remote_valid, read_remote_qp, read_cnp_sent, read_last_cnp, read_pkts, read_ce_pkts} = b_entry_reg;
// B's word: as read, or the sent word (the CNP's tick, counts cleared)
// when B's last event sent a CNP for this QP.
wire        entry_remote_valid = read_remote_valid;
wire [23:0] entry_remote_qp = read_remote_qp;
wire        entry_cnp_sent = b_fwd_sent_reg || read_cnp_sent;
wire [63:0] entry_last_cnp = b_fwd_sent_reg ? b_sent_time_reg : read_last_cnp;
wire [15:0] entry_pkts = b_fwd_sent_reg ? 16'd0 : read_pkts;
wire [15:0] entry_ce_pkts = b_fwd_sent_reg ? 16'd0 : read_ce_pkts;

// CNP requests from stage B, queued for the builder: B never waits, and
// the input is held while the events in R and B could overfill the queue.
// A request is packed here and unpacked below, nowhere else.
localparam REQ_WIDTH = 64 + `REPLY_ADDR_WIDTH + 24 + 16 + 16 + 1;
localparam REQ_DEPTH = 4;
wire [REQ_WIDTH-1:0] req_head;
wire [63:0]  req_time;
wire [`REPLY_ADDR_WIDTH-1:0] req_reply_addr;
wire [23:0]  req_dest_qp;
wire [15:0]  req_pkts;
wire [15:0]  req_ce_pkts;
// Its CE count equals its packet count (the whole window was CE), decided
// at B, so the builder's start reads a bit of the head, not a 16-bit
// compare of two fields.
wire         req_all_ce;
assign {req_time, req_reply_addr, req_dest_qp, req_pkts, req_ce_pkts, req_all_ce} = req_head;

// The CNP builder: the extent division here, the frame in frame_inst,
// which takes the request as the queue's head is popped and the reserved
// bytes once the extent is known (at once without a division).
wire        frame_idle;
reg         div_active_reg = 1'b0, div_active_next;
reg [15:0]  div_pkts_reg, div_pkts_next;
reg [16:0]  div_rem_reg, div_rem_next;
reg [EXTENT_BITS:0] extent_reg, extent_next;
reg [3:0]   div_step_reg, div_step_next;

// Next-state values of the packet counters: each stops at its own maximum,
// so the CE packet that sends a CNP always counts.
wire [15:0] pkts_new = entry_pkts == 16'hFFFF ? entry_pkts : entry_pkts + 16'd1;
wire [15:0] ce_pkts_new = entry_ce_pkts == 16'hFFFF || !b_ce ? entry_ce_pkts : entry_ce_pkts + 16'd1;
wire        remote_known = b_src_qp_valid || entry_remote_valid;
wire [23:0] remote_qp = b_src_qp_valid ? b_src_qp : entry_remote_qp;
// t - last_cnp >= interval, as last_cnp <= t - interval; for the word as
// read and for the sent word side by side, so that b_fwd_sent_reg selects
// after the comparisons. Each as high < start's high, or high <= it
// (high < high + 1) when the low halves compare <=: the order of one
// 65-bit compare.
function interval_le(input [63:0] last, input [64:0] start, input [33:0] start_high_next);
    reg high_lt;
    reg high_le;
    reg low_le;
    begin
        high_lt = $signed({1'b0, last[63:32]}) < $signed(start[64:32]);
        high_le = $signed({2'b00, last[63:32]}) < $signed(start_high_next);
        low_le = !(start[31:0] < last[31:0]);
        interval_le = low_le ? high_le : high_lt;
    end
endfunction
wire        read_interval_passed = !read_cnp_sent
    || interval_le(read_last_cnp, b_interval_start_reg, b_interval_high_next_reg);
wire        sent_interval_passed = interval_le(b_sent_time_reg, b_interval_start_reg, b_interval_high_next_reg);
wire        interval_passed = b_fwd_sent_reg ? sent_interval_passed : read_interval_passed;
wire        send_cnp = b_valid_reg && b_ce && remote_known && interval_passed;
// B's word after its event: counted, or the sent word when send_cnp.
wire [NP_ENTRY_WIDTH-1:0] counted_word = np_entry(entry_remote_valid, entry_remote_qp, entry_cnp_sent, entry_last_cnp,
                                                  pkts_new, ce_pkts_new);
wire [NP_ENTRY_WIDTH-1:0] sent_word = np_entry(entry_remote_valid, entry_remote_qp, 1'b1, b_time, 16'd0, 16'd0);
// The request's whole-window-CE bit, from the word as read: a request is
// only queued by a CE event (send_cnp), whose counts both step up by one
// (saturating): equal after it iff equal before, or both at FFFE or FFFF,
// or both cleared by B's forwarded CNP.
wire                      req_all_ce_in = b_fwd_sent_reg || read_ce_pkts == read_pkts
    || (&read_ce_pkts[15:1] && &read_pkts[15:1]);
// R's forwarding selects, registered a cycle early from what R, B and W
// load next (the input's QP, R's event, B's event; each loads every
// cycle), so the selects before b_entry_reg are registers, not QP
// compares. An enable on r_evt_reg, b_evt_reg or w_qp_reg would break
// them (the assertion below checks them against the live compares).
reg                       fwd_from_b_reg = 1'b0;
reg                       fwd_from_w_reg = 1'b0;
wire                      fwd_from_b = fwd_from_b_reg;
wire                      fwd_from_w = fwd_from_w_reg;

qp_rmw_pipe #(
    .WIDTH(NP_ENTRY_WIDTH),
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
    // B's word, as counted, or W's being written, if of R's QP: the newer
    // first, and the RAM's word after both.
    .newer_valid(fwd_from_b || fwd_from_w),
    .newer(fwd_from_b ? counted_word : w_word),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data)
);

wire [REQ_WIDTH-1:0] req_in = {b_time, b_reply_addr, remote_qp, pkts_new, ce_pkts_new, req_all_ce_in};
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
    .s_commit(send_cnp),
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
wire   accept_in_range = accept && {8'd0, s_evt_qp} < QP_COUNT;
wire [64:0] r_interval_start = {1'b0, r_time} - {33'd0, cfg_cnp_interval};

// Restoring division step of ce * 2^15 / pkts (ce < pkts).
wire [16:0] div_shifted = {div_rem_reg[15:0], 1'b0};
wire        div_fits = div_shifted >= {1'b0, div_pkts_reg};
// The last step: a quotient of 0 becomes 1, as a CNP always follows a CE
// mark and extent 0 means none (SPEC.md §6.3).
wire        div_last = div_step_reg == EXTENT_BITS - 1;
wire        div_bit = div_fits || (div_last && extent_reg[EXTENT_BITS-2:0] == 0);

// The CNP's fields (SPEC.md §6.3): the BTH, and the reserved bytes with
// the MetaRoCE extent: 1.0 when the whole window was CE (no division),
// else the quotient as the division's last step shifts in its last bit.
wire                 divide = cfg_metaroce && !req_all_ce;
wire [EXTENT_BITS:0] extent = div_active_reg ? {extent_reg[EXTENT_BITS-1:0], div_bit}
                                             : {1'b1, {EXTENT_BITS{1'b0}}};
wire [RESERVED_BYTES*8-1:0] reserved = cfg_metaroce
    ? {96'd0, be16(extent[15:0]), 16'h014D}
    : 128'd0;
wire [95:0]  bth = {32'd0, be24(req_dest_qp), 8'h40, 16'hFFFF, 8'h00, OPCODE_CNP};

roce_reply_frame #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .ROCE_UDP_PORT(ROCE_UDP_PORT),
    .EXT_BYTES(RESERVED_BYTES)
) frame_inst (
    .clk(clk),
    .rst(rst),
    .s_start(req_pop),
    .idle(frame_idle),
    .s_time(req_time),
    .s_reply_addr(req_reply_addr),
    .s_dscp(cfg_cnp_dscp),
    .s_pcp(cfg_cnp_pcp),
    .s_bth(bth),
    // The reserved bytes: with the request, or at the division's last step.
    .s_ext_valid(div_active_reg ? div_last : !divide),
    .s_ext(reserved),
    .s_short(1'b0),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser)
);

// The RAM's writes: the sweep, a context load, W's
// write-back.
always @* begin
    init_next = init_reg;
    init_addr_next = init_addr_reg;
    wr_en = 1'b0;
    wr_addr = w_qp_reg;
    wr_data = {NP_ENTRY_WIDTH{1'b0}};

    if (init_reg) begin
        wr_en = 1'b1;
        wr_addr = init_addr_reg;
        init_addr_next = init_addr_reg + 1;
        if ({{(32-QP_INDEX_WIDTH){1'b0}}, init_addr_reg} == QP_COUNT - 1) begin
            init_next = 1'b0;
        end
    end else if (s_qpctx_valid && s_qpctx_ready) begin
        // Loading a context starts the QP afresh.
        if ({8'd0, s_qpctx_local} < QP_COUNT) begin
            wr_en = 1'b1;
            wr_addr = s_qpctx_local[QP_INDEX_WIDTH-1:0];
            wr_data = np_entry(1'b1, s_qpctx_remote, 1'b0, 64'd0, 16'd0, 16'd0);
        end
    end else if (w_valid_reg) begin
        wr_en = 1'b1;
        wr_data = w_word;
    end
end

// The extent division (ce * 2^15 / pkts, EXTENT_BITS steps) of the
// request the builder takes, unless the whole window was CE.
always @* begin
    div_active_next = div_active_reg;
    div_pkts_next = div_pkts_reg;
    div_rem_next = div_rem_reg;
    extent_next = extent_reg;
    div_step_next = div_step_reg;

    if (div_active_reg) begin
        extent_next = {extent_reg[EXTENT_BITS-1:0], div_bit};
        div_rem_next = div_fits ? div_shifted - {1'b0, div_pkts_reg} : div_shifted;
        div_step_next = div_step_reg + 1;
        if (div_last) begin
            div_active_next = 1'b0;
        end
    end else if (req_pop && divide) begin
        div_pkts_next = req_pkts;
        div_rem_next = {1'b0, req_ce_pkts};
        div_step_next = 4'd0;
        extent_next = 0;
        div_active_next = 1'b1;
    end
end

always @(posedge clk) begin
    init_reg <= init_next;
    init_addr_reg <= init_addr_next;
    div_active_reg <= div_active_next;
    div_pkts_reg <= div_pkts_next;
    div_rem_reg <= div_rem_next;
    extent_reg <= extent_next;
    div_step_reg <= div_step_next;

    // R takes the event; B takes R's with its word (B's, as counted, or
    // W's being written, if of the same QP: the newer first); W takes B's.
    r_valid_reg <= accept_in_range;
    // R never holds, so its event register loads every cycle (r_valid_reg
    // says whether it holds one): its enables wait for no handshake.
    r_evt_reg <= s_evt_word;
    b_valid_reg <= r_valid_reg;
    fwd_from_b_reg <= r_valid_reg && r_qp == s_evt_qp[QP_INDEX_WIDTH-1:0];
    fwd_from_w_reg <= b_valid_reg && b_qp == s_evt_qp[QP_INDEX_WIDTH-1:0];
    b_evt_reg <= r_evt_reg;
    b_interval_start_reg <= r_interval_start;
    b_interval_high_next_reg <= {r_interval_start[64], r_interval_start[64:32]} + 34'd1;
    b_entry_reg <= entry;
    b_fwd_sent_reg <= fwd_from_b && send_cnp;
    b_sent_time_reg <= b_time;
    w_valid_reg <= b_valid_reg;
    w_qp_reg <= b_qp;
    w_send_reg <= send_cnp;
    w_counted_reg <= counted_word;
    w_sent_reg <= sent_word;

    if (rst) begin
        init_reg <= 1'b1;
        init_addr_reg <= 0;
        r_valid_reg <= 1'b0;
        b_valid_reg <= 1'b0;
        b_fwd_sent_reg <= 1'b0;
        fwd_from_b_reg <= 1'b0;
        fwd_from_w_reg <= 1'b0;
        w_valid_reg <= 1'b0;
        div_active_reg <= 1'b0;
    end
end

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
always @(posedge clk) begin
    if (!rst && req_pop) begin
        assert (req_all_ce == (req_ce_pkts == req_pkts))
        else metaroce_assertion_failed("cnp_notify: the request's whole-window-CE bit disagrees with its counts");
    end
    if (!rst) begin
        assert (fwd_from_b_reg == (b_valid_reg && b_qp == r_qp) && fwd_from_w_reg == (w_valid_reg && w_qp_reg == r_qp))
        else metaroce_assertion_failed("cnp_notify: R's registered forwarding selects out of step");
    end
    if (!rst && b_valid_reg) begin
        assert (read_interval_passed == (!read_cnp_sent
                || $signed({1'b0, read_last_cnp}) <= $signed(b_interval_start_reg))
                && sent_interval_passed == ($signed({1'b0, b_sent_time_reg}) <= $signed(b_interval_start_reg)))
        else metaroce_assertion_failed("cnp_notify: the split interval check disagrees with the 65-bit compare");
    end
end
`endif

endmodule

`resetall

// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "metaroce_cfg.vh"

/*
 * Reaction point: per-QP DCQCN, or the MetaRoCE cut (SPEC.md §6.4).
 * Received CNPs cut a QP's rate; its transmitted bytes and its timers
 * raise it again. Rates are kb/s, alpha and the CE extent Q1.15.
 *
 * Timers catch up lazily: each QP's RAM word holds the tick of its next
 * alpha update and next timer increase. An event for a QP first works off
 * the expiries up to the event's tick, one per cycle (alpha first on a
 * tie), each rate change stamped with its expiry tick; then it applies the
 * event. The alpha timer stops at alpha 0; a QP at line rate with alpha 0
 * stops both. Every sent-bytes event ends in one transaction that hands the
 * packet on to the pacer (m_rate_sent): its byte-counter step, or trigger 3
 * when nothing changed. The pacer so sees rates and packets in one order.
 *
 * Pipelined: an event a cycle when no timer expiry is due. Stage A takes the
 * event and reads its QP's RAM word; stage B (the word forwarded from the
 * previous cycle's write when both events are for the same QP) applies the
 * event and writes the word back. An event with expiries due leaves the
 * pipeline for the catch-up loop (one expiry per cycle, then apply); stage B
 * also waits while the rate output is full.
 *
 * | port               | width | meaning                                          |
 * |--------------------|-------|--------------------------------------------------|
 * | s_evt_time         | 64    | tick (ns); never decreases                       |
 * | s_evt_cnp          | 1     | 1: CNP received for the QP, 0: bytes it sent     |
 * | s_evt_qp           | 24    | local QP                                         |
 * | s_evt_len          | 17    | bytes sent (transmit events)                     |
 * | s_evt_extent_valid | 1     | the CNP carried a MetaRoCE CE extent             |
 * | s_evt_extent       | 16    | that extent, Q1.15                               |
 * | m_rate_time        | 64    | tick of the step                                 |
 * | m_rate_qp          | 24    | QP                                               |
 * | m_rate_rate        | 32    | current rate Rc after the step, kb/s             |
 * | m_rate_target      | 32    | target rate Rt after the step, kb/s              |
 * | m_rate_alpha       | 16    | alpha after the step, Q1.15                      |
 * | m_rate_stage       | 2     | 0 cut, 1 fast recovery, 2 additive, 3 hyper      |
 * | m_rate_trigger     | 2     | 0 CNP, 1 timer, 2 byte counter, 3 sent (no change)|
 * | m_rate_sent        | 1     | closes a sent-bytes event: hands the packet on    |
 * | m_rate_len         | 17    | that packet's bytes                              |
 * | busy               | 1     | an event or rate change is still in the block    |
 *
 * RAM word (RP_ENTRY_WIDTH bits), high to low: rate 32, target 32,
 * alpha 16, running, cut_seen, alpha_due 64, increase_due 64, bytes 32,
 * timer_stage 8, byte_stage 8.
 */
module dcqcn_rp #(
    parameter QP_COUNT = 1024
) (
    input  wire         clk,
    input  wire         rst,

    input  wire [`CFG_WIDTH-1:0] cfg,

    input  wire         s_evt_valid,
    output wire         s_evt_ready,
    input  wire [63:0]  s_evt_time,
    input  wire         s_evt_cnp,
    input  wire [23:0]  s_evt_qp,
    input  wire [16:0]  s_evt_len,
    input  wire         s_evt_extent_valid,
    input  wire [15:0]  s_evt_extent,

    output wire         m_rate_valid,
    input  wire         m_rate_ready,
    output wire [63:0]  m_rate_time,
    output wire [23:0]  m_rate_qp,
    output wire [31:0]  m_rate_rate,
    output wire [31:0]  m_rate_target,
    output wire [15:0]  m_rate_alpha,
    output wire [1:0]   m_rate_stage,
    output wire [1:0]   m_rate_trigger,
    output wire         m_rate_sent,
    output wire [16:0]  m_rate_len,

    output wire         busy
);

// The registers this module reads: slices of the cfg bus (rtl/metaroce_cfg.vh).
wire cfg_metaroce = cfg[`CFG_METAROCE];
wire [`CFG_LINE_RATE_KBPS_W-1:0] cfg_line_rate = cfg[`CFG_LINE_RATE_KBPS];
wire [`CFG_MIN_RATE_KBPS_W-1:0] cfg_min_rate = cfg[`CFG_MIN_RATE_KBPS];
wire [`CFG_MIN_DEC_Q15_W-1:0] cfg_min_dec = cfg[`CFG_MIN_DEC_Q15];
wire [`CFG_G_W-1:0] cfg_g = cfg[`CFG_G];
wire [`CFG_ALPHA_PERIOD_NS_W-1:0] cfg_alpha_period = cfg[`CFG_ALPHA_PERIOD_NS];
wire [`CFG_TIME_RESET_NS_W-1:0] cfg_time_reset = cfg[`CFG_TIME_RESET_NS];
wire [`CFG_BYTE_RESET_W-1:0] cfg_byte_reset = cfg[`CFG_BYTE_RESET];
wire [`CFG_THRESHOLD_W-1:0] cfg_threshold = cfg[`CFG_THRESHOLD];
wire [`CFG_AI_KBPS_W-1:0] cfg_ai_rate = cfg[`CFG_AI_KBPS];
wire [`CFG_HAI_KBPS_W-1:0] cfg_hai_rate = cfg[`CFG_HAI_KBPS];
wire [`CFG_INITIAL_ALPHA_W-1:0] cfg_initial_alpha = cfg[`CFG_INITIAL_ALPHA];
wire [`CFG_FIRST_CNP_KBPS_W-1:0] cfg_first_cnp_rate = cfg[`CFG_FIRST_CNP_KBPS];
wire cfg_clamp_tgt = cfg[`CFG_CLAMP_TGT];
wire [`CFG_REDUCE_PERIOD_NS_W-1:0] cfg_reduce_period = cfg[`CFG_REDUCE_PERIOD_NS];
// The other modules' registers.
wire unused_cfg = &{1'b0, cfg};

localparam QP_INDEX_WIDTH = QP_COUNT > 1 ? $clog2(QP_COUNT) : 1;
localparam RP_ENTRY_WIDTH = 32 + 32 + 16 + 1 + 1 + 64 + 64 + 32 + 8 + 8;
localparam [15:0] FRACTION_ONE = 16'h8000;

localparam [1:0]
    STATE_INIT = 2'd0,
    STATE_RUN = 2'd1,
    STATE_CATCH_UP = 2'd2,
    STATE_APPLY = 2'd3;

// Stage and trigger codes, shared with the golden model.
`include "metaroce_defs.vh"

// Illegal parameters stop elaboration: the instance of a module that does
// not exist names the rule (Icarus Verilog 11 has no elaboration $error).
generate
    if (QP_COUNT < 1 || QP_COUNT > (1 << 24)) begin : g_bad_qp_count
        dcqcn_rp_QP_COUNT_must_be_1_to_2_pow_24 bad_qp_count();
    end
endgenerate

reg [1:0] state_reg = STATE_INIT, state_next;
// Stage B holds an event whose RAM word was read last cycle.
reg b_valid_reg = 1'b0, b_valid_next;
reg [QP_INDEX_WIDTH-1:0] init_addr_reg = 0, init_addr_next;

reg [63:0] evt_time_reg;
reg        evt_cnp_reg;
reg [QP_INDEX_WIDTH-1:0] evt_qp_reg;
reg [16:0] evt_len_reg;
reg        evt_extent_valid_reg;
reg [15:0] evt_extent_reg;

// The RAM word, packed here and unpacked (cur_*) below, nowhere else.
function [RP_ENTRY_WIDTH-1:0] rp_entry(
    input [31:0] rate,
    input [31:0] target,
    input [15:0] alpha,
    input        running,
    input        cut_seen,
    input [63:0] alpha_due,
    input [63:0] increase_due,
    input [31:0] bytes,
    input [7:0]  timer_stage,
    input [7:0]  byte_stage
);
    rp_entry = {rate, target, alpha, running, cut_seen, alpha_due, increase_due, bytes, timer_stage, byte_stage};
endfunction

// The QP's state after this cycle's step, field by field, and packed: the
// word written back, and the state the catch-up loop carries in qp_reg.
reg [31:0] rate_next;
reg [31:0] target_next;
reg [15:0] alpha_next;
reg        running_next;
reg        cut_seen_next;
reg [63:0] alpha_due_next;
reg [63:0] increase_due_next;
reg [31:0] bytes_next;
reg [7:0]  timer_stage_next;
reg [7:0]  byte_stage_next;
wire [RP_ENTRY_WIDTH-1:0] qp_next = rp_entry(rate_next, target_next, alpha_next, running_next, cut_seen_next,
    alpha_due_next, increase_due_next, bytes_next, timer_stage_next, byte_stage_next);
reg  [RP_ENTRY_WIDTH-1:0] qp_reg;

reg        m_rate_valid_reg = 1'b0, m_rate_valid_next;
reg [63:0] m_rate_time_reg, m_rate_time_next;
reg [1:0]  m_rate_stage_reg, m_rate_stage_next;
reg [1:0]  m_rate_trigger_reg, m_rate_trigger_next;
reg [31:0] m_rate_rate_reg, m_rate_rate_next;
reg [31:0] m_rate_target_reg, m_rate_target_next;
reg [15:0] m_rate_alpha_reg, m_rate_alpha_next;
reg [23:0] m_rate_qp_reg, m_rate_qp_next;
reg        m_rate_sent_reg, m_rate_sent_next;
reg [16:0] m_rate_len_reg, m_rate_len_next;

wire [RP_ENTRY_WIDTH-1:0] entry;
wire                     rd_en;
reg                      wr_en;
reg [QP_INDEX_WIDTH-1:0] wr_addr;

// Stage B is free, or finishes on the fast path this cycle.
assign s_evt_ready = state_reg == STATE_RUN && (!b_valid_reg || (!expiry_due && apply_done));
assign busy = state_reg != STATE_RUN || b_valid_reg || m_rate_valid_reg;
wire   accept_in_range = s_evt_valid && s_evt_ready && {8'd0, s_evt_qp} < QP_COUNT;
assign rd_en = accept_in_range;
assign m_rate_valid = m_rate_valid_reg;
assign m_rate_time = m_rate_time_reg;
assign m_rate_qp = m_rate_qp_reg;
assign m_rate_rate = m_rate_rate_reg;
assign m_rate_target = m_rate_target_reg;
assign m_rate_alpha = m_rate_alpha_reg;
assign m_rate_stage = m_rate_stage_reg;
assign m_rate_trigger = m_rate_trigger_reg;
assign m_rate_sent = m_rate_sent_reg;
assign m_rate_len = m_rate_len_reg;

wire out_free = !m_rate_valid_reg || m_rate_ready;

// The step of this cycle hands out a rate change (with the state after it).
reg        emit;
reg [63:0] emit_time;
reg [1:0]  emit_stage;
reg [1:0]  emit_trigger;
reg        emit_sent;

// Per-QP state (qp_rmw_pipe.v): stage A reads, stage B sees the word on
// `entry` (forwarded from its own write) and writes it back.
qp_rmw_pipe #(
    .WIDTH(RP_ENTRY_WIDTH),
    .DEPTH(QP_COUNT),
    .ADDR_WIDTH(QP_INDEX_WIDTH)
) state_inst (
    .clk(clk),
    .rd_en(rd_en),
    .rd_addr(s_evt_qp[QP_INDEX_WIDTH-1:0]),
    .entry(entry),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(qp_next)
);

// The QP's state the datapath works on: the RAM word in stage B, qp_reg
// in the catch-up loop and its apply.
wire        in_pipe = state_reg == STATE_RUN;
wire [31:0] cur_rate;
wire [31:0] cur_target;
wire [15:0] cur_alpha;
wire        cur_running;
wire        cur_cut_seen;
wire [63:0] cur_alpha_due;
wire [63:0] cur_increase_due;
wire [31:0] cur_bytes;
wire [7:0]  cur_timer_stage;
wire [7:0]  cur_byte_stage;
assign {cur_rate, cur_target, cur_alpha, cur_running, cur_cut_seen, cur_alpha_due, cur_increase_due, cur_bytes,
        cur_timer_stage, cur_byte_stage} = in_pipe ? entry : qp_reg;
reg apply_done;

// Products keep the bits their formula reads; the rest are unused.
/* verilator lint_off UNUSEDSIGNAL */
// alpha * (1 - g), the product rounded up so alpha reaches 0 (alpha <= 2^15
// and g <= 2^10, so bit 26 is never set).
wire [26:0] alpha_g = cur_alpha * cfg_g;
wire [15:0] alpha_decayed = cur_alpha - alpha_g[25:10] - {15'd0, alpha_g[9:0] != 10'd0};

// The timer expiry due first, and whether it is due by the event's tick.
// The alpha timer runs while alpha is above 0 (a decay of 0 changes nothing).
wire        alpha_first = cur_alpha != 0 && cur_alpha_due <= cur_increase_due;
wire [63:0] next_due = alpha_first ? cur_alpha_due : cur_increase_due;
wire        expiry_due = cur_running && next_due <= evt_time_reg;

// One increase step; stage counts as they are after this step's count.
wire        by_timer = state_reg == STATE_CATCH_UP;
wire [7:0]  timer_stage_inc = cur_timer_stage == 8'hFF ? 8'hFF : cur_timer_stage + 8'd1;
wire [7:0]  byte_stage_inc = cur_byte_stage == 8'hFF ? 8'hFF : cur_byte_stage + 8'd1;
wire [7:0]  step_timer_stage = by_timer ? timer_stage_inc : cur_timer_stage;
wire [7:0]  step_byte_stage = by_timer ? cur_byte_stage : byte_stage_inc;
wire [7:0]  stage_high = step_timer_stage > step_byte_stage ? step_timer_stage : step_byte_stage;
wire [7:0]  stage_low = step_timer_stage > step_byte_stage ? step_byte_stage : step_timer_stage;
wire [7:0]  hyper_steps = stage_low - cfg_threshold;
wire [39:0] hyper_add = hyper_steps * cfg_hai_rate;
wire [40:0] target_hyper_sum = {9'd0, cur_target} + {1'd0, hyper_add};
wire [32:0] target_ai_sum = {1'b0, cur_target} + {1'b0, cfg_ai_rate};
reg  [1:0]  inc_stage;
reg  [31:0] inc_target;
always @* begin
    if (stage_high < cfg_threshold) begin
        inc_stage = STAGE_FAST_RECOVERY;
        inc_target = cur_target;
    end else if (stage_low > cfg_threshold) begin
        inc_stage = STAGE_HYPER_INCREASE;
        inc_target = target_hyper_sum > {9'd0, cfg_line_rate} ? cfg_line_rate : target_hyper_sum[31:0];
    end else begin
        inc_stage = STAGE_ADDITIVE_INCREASE;
        inc_target = target_ai_sum > {1'b0, cfg_line_rate} ? cfg_line_rate : target_ai_sum[31:0];
    end
end
// (Rt + Rc) / 2 rounded up, so the rate reaches the target.
wire [32:0] inc_rate_sum = {1'b0, inc_target} + {1'b0, cur_rate} + 33'd1;
wire [31:0] inc_rate = inc_rate_sum[32:1];
wire        inc_changed = inc_rate != cur_rate || inc_target != cur_target;
wire        converged_after_inc = inc_rate == cfg_line_rate && inc_target == cfg_line_rate && cur_alpha == 0;

// The cut on a CNP.
wire        use_extent = cfg_metaroce && evt_extent_valid_reg;
// An extent above 1.0 (a malformed CNP) counts as 1.0.
wire [15:0] extent = evt_extent_reg > FRACTION_ONE ? FRACTION_ONE : evt_extent_reg;
wire [15:0] cut_fraction = use_extent ? extent : cur_alpha;
wire [47:0] cut_product = cur_rate * cut_fraction;
wire [31:0] rate_cut = cur_rate - cut_product[47:16];
wire [47:0] floor_product = cur_rate * cfg_min_dec;
wire [31:0] rate_floor = floor_product[46:15];
wire [31:0] rate_cut_limited = rate_cut > rate_floor ? rate_cut : rate_floor;
wire        first_cut = !cur_cut_seen && cfg_first_cnp_rate != 0;
wire [31:0] rate_first = cfg_first_cnp_rate < cur_rate ? cfg_first_cnp_rate : cur_rate;
wire [31:0] rate_after_cut_raw = first_cut ? rate_first : rate_cut_limited;
wire [31:0] rate_after_cut = rate_after_cut_raw > cfg_min_rate ? rate_after_cut_raw : cfg_min_rate;
wire [26:0] extent_g = extent * cfg_g;
/* verilator lint_on UNUSEDSIGNAL */
wire [15:0] alpha_gain = use_extent ? extent_g[25:10] : {cfg_g, 5'd0};
wire        clamp_target = cfg_clamp_tgt || cur_timer_stage != 0 || cur_byte_stage != 0;
// rp_rate_reduce_monitor_period: a CNP within the period of the QP's last
// cut changes nothing. Until the first timer increase after a cut,
// increase_due - time_reset is that cut's tick; the period is at most
// time_reset, so a CNP after that increase is past it.
wire [64:0] cnp_plus_reset = {1'b0, evt_time_reg} + {33'd0, cfg_time_reset};
wire [64:0] cut_hold_end = {1'b0, cur_increase_due} + {33'd0, cfg_reduce_period};
wire        cut_held = cur_cut_seen && cur_timer_stage == 8'd0 && cnp_plus_reset < cut_hold_end;

// The byte counter.
wire [32:0] bytes_sum = {1'b0, cur_bytes} + {16'd0, evt_len_reg};
wire        byte_step = bytes_sum >= {1'b0, cfg_byte_reset};

always @* begin
    state_next = state_reg;
    init_addr_next = init_addr_reg;
    // The state as it is: the word in stage B (whose step may change it)
    // or the catch-up loop's.
    rate_next = cur_rate;
    target_next = cur_target;
    alpha_next = cur_alpha;
    running_next = cur_running;
    cut_seen_next = cur_cut_seen;
    alpha_due_next = cur_alpha_due;
    increase_due_next = cur_increase_due;
    bytes_next = cur_bytes;
    timer_stage_next = cur_timer_stage;
    byte_stage_next = cur_byte_stage;

    emit = 1'b0;
    emit_time = evt_time_reg;
    emit_stage = inc_stage;
    emit_trigger = TRIGGER_BYTE_COUNTER;
    emit_sent = 1'b0;
    m_rate_valid_next = m_rate_valid_reg && !m_rate_ready;
    m_rate_time_next = m_rate_time_reg;
    m_rate_stage_next = m_rate_stage_reg;
    m_rate_trigger_next = m_rate_trigger_reg;
    m_rate_rate_next = m_rate_rate_reg;
    m_rate_target_next = m_rate_target_reg;
    m_rate_alpha_next = m_rate_alpha_reg;
    m_rate_qp_next = m_rate_qp_reg;
    m_rate_sent_next = m_rate_sent_reg;
    m_rate_len_next = m_rate_len_reg;

    wr_en = 1'b0;
    wr_addr = evt_qp_reg;
    b_valid_next = b_valid_reg;
    apply_done = 1'b0;

    case (state_reg)
        STATE_INIT: begin
            // Every QP starts at line rate with the initial alpha, timers stopped.
            wr_en = 1'b1;
            wr_addr = init_addr_reg;
            rate_next = cfg_line_rate;
            target_next = cfg_line_rate;
            alpha_next = cfg_initial_alpha;
            running_next = 1'b0;
            cut_seen_next = 1'b0;
            alpha_due_next = 64'd0;
            increase_due_next = 64'd0;
            bytes_next = 32'd0;
            timer_stage_next = 8'd0;
            byte_stage_next = 8'd0;
            init_addr_next = init_addr_reg + 1;
            if ({{(32-QP_INDEX_WIDTH){1'b0}}, init_addr_reg} == QP_COUNT - 1) begin
                state_next = STATE_RUN;
            end
        end
        STATE_RUN: begin
            if (b_valid_reg && expiry_due) begin
                // Expiries to work off: the event leaves the pipeline, its
                // QP's word for qp_reg.
                b_valid_next = 1'b0;
                state_next = STATE_CATCH_UP;
            end
        end
        STATE_CATCH_UP: begin
            if (!expiry_due) begin
                state_next = STATE_APPLY;
            end else if (alpha_first) begin
                alpha_next = alpha_decayed;
                alpha_due_next = cur_alpha_due + {32'd0, cfg_alpha_period};
                if (cur_rate == cfg_line_rate && cur_target == cfg_line_rate && alpha_decayed == 0) begin
                    running_next = 1'b0;
                end
            end else if (out_free) begin
                timer_stage_next = timer_stage_inc;
                rate_next = inc_rate;
                target_next = inc_target;
                increase_due_next = cur_increase_due + {32'd0, cfg_time_reset};
                if (converged_after_inc) begin
                    running_next = 1'b0;
                end
                emit = inc_changed;
                emit_time = cur_increase_due;
                emit_trigger = TRIGGER_TIMER;
            end
        end
        default: ;
    endcase

    // Apply the event: on the fast path to the RAM word, after the
    // catch-up loop to qp_reg (cur_* selects).
    if ((state_reg == STATE_RUN && b_valid_reg && !expiry_due) || state_reg == STATE_APPLY) begin
        if (evt_cnp_reg) begin
            if (cut_held) begin
                // Absorbed: the word goes back as caught up, nothing is emitted.
                apply_done = 1'b1;
            end else if (out_free) begin
                rate_next = rate_after_cut;
                target_next = clamp_target ? cur_rate : cur_target;
                alpha_next = alpha_decayed + alpha_gain;
                running_next = 1'b1;
                cut_seen_next = 1'b1;
                timer_stage_next = 8'd0;
                byte_stage_next = 8'd0;
                bytes_next = 32'd0;
                alpha_due_next = evt_time_reg + {32'd0, cfg_alpha_period};
                increase_due_next = evt_time_reg + {32'd0, cfg_time_reset};
                emit = 1'b1;
                emit_stage = STAGE_CUT;
                emit_trigger = TRIGGER_CNP;
                apply_done = 1'b1;
            end
        end else if (out_free) begin
            // Sent bytes: the byte counter (while the timers run), and the
            // packet handed on in this event's last transaction.
            emit_trigger = TRIGGER_SENT;
            emit_stage = STAGE_CUT;
            if (cur_running && byte_step) begin
                bytes_next = 32'd0;
                byte_stage_next = byte_stage_inc;
                rate_next = inc_rate;
                target_next = inc_target;
                if (converged_after_inc) begin
                    running_next = 1'b0;
                end
                if (inc_changed) begin
                    emit_trigger = TRIGGER_BYTE_COUNTER;
                    emit_stage = inc_stage;
                end
            end else if (cur_running) begin
                bytes_next = bytes_sum[31:0];
            end
            emit = 1'b1;
            emit_sent = 1'b1;
            apply_done = 1'b1;
        end
        if (apply_done) begin
            wr_en = 1'b1;
            if (state_reg == STATE_APPLY) begin
                state_next = STATE_RUN;
            end else begin
                b_valid_next = 1'b0;
            end
        end
    end

    if (emit) begin
        m_rate_valid_next = 1'b1;
        m_rate_time_next = emit_time;
        m_rate_stage_next = emit_stage;
        m_rate_trigger_next = emit_trigger;
        m_rate_rate_next = rate_next;
        m_rate_target_next = target_next;
        m_rate_alpha_next = alpha_next;
        m_rate_qp_next = {{(24-QP_INDEX_WIDTH){1'b0}}, evt_qp_reg};
        m_rate_sent_next = emit_sent;
        m_rate_len_next = evt_len_reg;
    end
end

always @(posedge clk) begin
    state_reg <= state_next;
    b_valid_reg <= b_valid_next || accept_in_range;
    init_addr_reg <= init_addr_next;
    qp_reg <= qp_next;

    m_rate_valid_reg <= m_rate_valid_next;
    m_rate_time_reg <= m_rate_time_next;
    m_rate_stage_reg <= m_rate_stage_next;
    m_rate_trigger_reg <= m_rate_trigger_next;
    m_rate_rate_reg <= m_rate_rate_next;
    m_rate_target_reg <= m_rate_target_next;
    m_rate_alpha_reg <= m_rate_alpha_next;
    m_rate_qp_reg <= m_rate_qp_next;
    m_rate_sent_reg <= m_rate_sent_next;
    m_rate_len_reg <= m_rate_len_next;

    if (accept_in_range) begin
        evt_time_reg <= s_evt_time;
        evt_cnp_reg <= s_evt_cnp;
        evt_qp_reg <= s_evt_qp[QP_INDEX_WIDTH-1:0];
        evt_len_reg <= s_evt_len;
        evt_extent_valid_reg <= s_evt_extent_valid;
        evt_extent_reg <= s_evt_extent;
    end

    if (rst) begin
        state_reg <= STATE_INIT;
        b_valid_reg <= 1'b0;
        init_addr_reg <= 0;
        m_rate_valid_reg <= 1'b0;
    end
end

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
always @(posedge clk) begin
    if (!rst && state_reg == STATE_CATCH_UP) begin
        assert (cur_rate <= cur_target && cur_target <= cfg_line_rate && cur_rate >= cfg_min_rate)
        else metaroce_assertion_failed("dcqcn_rp: rates out of order (min <= Rc <= Rt <= line)");
        assert (cur_alpha <= FRACTION_ONE)
        else metaroce_assertion_failed("dcqcn_rp: alpha above 1.0");
    end
end
`endif

endmodule

`resetall

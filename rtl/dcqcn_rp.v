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
 * Pipelined, an event a cycle for events on different QPs (SPEC.md §6.4):
 *   A  takes the event and reads its QP's RAM word;
 *   R  the word arrives (forwarded when the write-back of the cycle of the
 *      read was the same QP);
 *   P  the word registered: products, sums and compares for both the
 *      catch-up and the event;
 *   C  the catch-up loop (one expiry a cycle on C's own registers, then
 *      one cycle back through P's logic), or the event applied: the rate
 *      output and the word for the write-back, a cycle later.
 * An event waits in A while R, P or C hold an event of its QP (at most
 * 3 cycles), so every read sees the QP's last write. C waits while the
 * rate output is full.
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

// Stage and trigger codes, shared with the golden model.
`include "metaroce_defs.vh"

// Illegal parameters stop elaboration: the instance of a module that does
// not exist names the rule (Icarus Verilog 11 has no elaboration $error).
generate
    if (QP_COUNT < 1 || QP_COUNT > (1 << 24)) begin : g_bad_qp_count
        dcqcn_rp_QP_COUNT_must_be_1_to_2_pow_24 bad_qp_count();
    end
endgenerate

// The RAM word, packed here and unpacked by the R to P register, nowhere else.
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

function [7:0] sat_inc(input [7:0] count);
    sat_inc = count == 8'hFF ? 8'hFF : count + 8'd1;
endfunction

// One increase step with the stage counts after its count: the stage and
// what it adds to the target ({stage, amount}; 0 in fast recovery).
function [41:0] increase_step(
    input [7:0]  timer_stage,
    input [7:0]  byte_stage,
    input [7:0]  threshold,
    input [31:0] ai_rate,
    input [31:0] hai_rate
);
    reg [7:0] high;
    reg [7:0] low;
    reg [7:0] steps;
    reg [39:0] hyper_add;
    begin
        high = timer_stage > byte_stage ? timer_stage : byte_stage;
        low = timer_stage > byte_stage ? byte_stage : timer_stage;
        steps = low - threshold;
        hyper_add = steps * hai_rate;
        if (high < threshold) begin
            increase_step = {STAGE_FAST_RECOVERY, 40'd0};
        end else if (low > threshold) begin
            increase_step = {STAGE_HYPER_INCREASE, hyper_add};
        end else begin
            increase_step = {STAGE_ADDITIVE_INCREASE, 8'd0, ai_rate};
        end
    end
endfunction

// alpha * (1 - g), the product rounded up so alpha reaches 0 (alpha <= 2^15
// and g <= 2^10, so bit 26 is never set).
/* verilator lint_off UNUSEDSIGNAL */
function [15:0] alpha_decay(input [15:0] alpha, input [10:0] g);
    reg [26:0] product;
    begin
        product = alpha * g;
        alpha_decay = alpha - product[25:10] - {15'd0, product[9:0] != 10'd0};
    end
endfunction
/* verilator lint_on UNUSEDSIGNAL */

// ---------------------------------------------------------------------------
// Reset sweep: every QP starts at line rate with the initial alpha, timers
// stopped.
reg                      init_reg = 1'b1;
reg [QP_INDEX_WIDTH-1:0] init_addr_reg = 0;

// Stage A: the event, its QP's word being read.
reg                      a_valid_reg = 1'b0;
reg [63:0]               a_time_reg;
reg                      a_cnp_reg;
reg [QP_INDEX_WIDTH-1:0] a_qp_reg;
reg [16:0]               a_len_reg;
reg                      a_extent_valid_reg;
reg [15:0]               a_extent_reg;

// Stage R: the word arrives on `entry`.
reg                      r_valid_reg = 1'b0;
reg [63:0]               r_time_reg;
reg                      r_cnp_reg;
reg [QP_INDEX_WIDTH-1:0] r_qp_reg;
reg [16:0]               r_len_reg;
reg                      r_extent_valid_reg;
reg [15:0]               r_extent_reg;

// Stage P: the event and its QP's word.
reg                      p_valid_reg = 1'b0;
reg [63:0]               p_time_reg;
reg                      p_cnp_reg;
reg [QP_INDEX_WIDTH-1:0] p_qp_reg;
reg [16:0]               p_len_reg;
reg                      p_extent_valid_reg;
reg [15:0]               p_extent_reg;
reg [31:0]               p_rate_reg;
reg [31:0]               p_target_reg;
reg [15:0]               p_alpha_reg;
reg                      p_running_reg;
reg                      p_cut_seen_reg;
reg [63:0]               p_alpha_due_reg;
reg [63:0]               p_increase_due_reg;
reg [31:0]               p_bytes_reg;
reg [7:0]                p_timer_stage_reg;
reg [7:0]                p_byte_stage_reg;

// Stage C: the event, the QP's state (stepped in place by the catch-up
// loop), and what P computed from them.
reg                      c_valid_reg = 1'b0;
reg                      c_catch_reg;
reg [63:0]               c_time_reg;
reg                      c_cnp_reg;
reg [QP_INDEX_WIDTH-1:0] c_qp_reg;
reg [16:0]               c_len_reg;
reg                      c_extent_valid_reg;
reg [15:0]               c_extent_reg;
reg [31:0]               c_rate_reg;
reg [31:0]               c_target_reg;
reg [15:0]               c_alpha_reg;
reg                      c_running_reg;
reg                      c_cut_seen_reg;
reg [63:0]               c_alpha_due_reg;
reg [63:0]               c_increase_due_reg;
reg [31:0]               c_bytes_reg;
reg [7:0]                c_timer_stage_reg;
reg [7:0]                c_byte_stage_reg;
reg [15:0]               c_alpha_decayed_reg;
reg [1:0]                c_timer_inc_stage_reg;
reg [39:0]               c_timer_inc_add_reg;
reg [1:0]                c_byte_inc_stage_reg;
reg [39:0]               c_byte_inc_add_reg;
reg [31:0]               c_cut_drop_reg;
reg [31:0]               c_rate_floor_reg;
reg [15:0]               c_alpha_gain_reg;
reg                      c_cut_held_reg;
reg                      c_first_cut_reg;
reg [31:0]               c_rate_first_reg;
reg                      c_clamp_target_reg;
reg [31:0]               c_bytes_sum_reg;
reg                      c_byte_step_reg;
reg [63:0]               c_cnp_alpha_due_reg;
reg [63:0]               c_cnp_increase_due_reg;

// Write-back: C's word, written the cycle after C applied the event.
reg                      w_valid_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0] w_qp_reg;
reg [RP_ENTRY_WIDTH-1:0] w_entry_reg;

reg        m_rate_valid_reg = 1'b0;
reg [63:0] m_rate_time_reg;
reg [1:0]  m_rate_stage_reg;
reg [1:0]  m_rate_trigger_reg;
reg [31:0] m_rate_rate_reg;
reg [31:0] m_rate_target_reg;
reg [15:0] m_rate_alpha_reg;
reg [23:0] m_rate_qp_reg;
reg        m_rate_sent_reg;
reg [16:0] m_rate_len_reg;

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

// ---------------------------------------------------------------------------
// Handshakes. C leaves with the event applied (never while catching up);
// P moves into C when C is empty or leaving; R into P, A into R likewise,
// A only when no later stage holds its QP.
wire c_leave = c_valid_reg && !c_catch_reg && out_free;
wire p_move = p_valid_reg && (!c_valid_reg || c_leave);
wire r_move = r_valid_reg && (!p_valid_reg || p_move);
wire a_hazard = (r_valid_reg && r_qp_reg == a_qp_reg) || (p_valid_reg && p_qp_reg == a_qp_reg)
    || (c_valid_reg && c_qp_reg == a_qp_reg);
wire a_move = a_valid_reg && !a_hazard && (!r_valid_reg || r_move);

assign s_evt_ready = !init_reg && (!a_valid_reg || a_move);
assign busy = init_reg || a_valid_reg || r_valid_reg || p_valid_reg || c_valid_reg || w_valid_reg
    || m_rate_valid_reg;
wire accept_in_range = s_evt_valid && s_evt_ready && {8'd0, s_evt_qp} < QP_COUNT;

// Per-QP state (qp_rmw_pipe.v): A reads, R sees the word on `entry`
// (forwarded from the write-back of the read's cycle).
wire [RP_ENTRY_WIDTH-1:0] entry;
wire [RP_ENTRY_WIDTH-1:0] init_entry = rp_entry(cfg_line_rate, cfg_line_rate, cfg_initial_alpha, 1'b0, 1'b0,
    64'd0, 64'd0, 32'd0, 8'd0, 8'd0);

qp_rmw_pipe #(
    .WIDTH(RP_ENTRY_WIDTH),
    .DEPTH(QP_COUNT),
    .ADDR_WIDTH(QP_INDEX_WIDTH)
) state_inst (
    .clk(clk),
    .rd_en(a_move),
    .rd_addr(a_qp_reg),
    .entry(entry),
    .wr_en(init_reg || w_valid_reg),
    .wr_addr(init_reg ? init_addr_reg : w_qp_reg),
    .wr_data(init_reg ? init_entry : w_entry_reg)
);

// ---------------------------------------------------------------------------
// P's logic: on P's event, or on C's while C catches up (C then takes its
// own state back with everything recomputed once no expiry is left).
wire        pl_from_c = c_valid_reg && c_catch_reg;
wire [63:0] pl_time = pl_from_c ? c_time_reg : p_time_reg;
wire        pl_cnp = pl_from_c ? c_cnp_reg : p_cnp_reg;
wire [QP_INDEX_WIDTH-1:0] pl_qp = pl_from_c ? c_qp_reg : p_qp_reg;
wire [16:0] pl_len = pl_from_c ? c_len_reg : p_len_reg;
wire        pl_extent_valid = pl_from_c ? c_extent_valid_reg : p_extent_valid_reg;
wire [15:0] pl_extent_in = pl_from_c ? c_extent_reg : p_extent_reg;
wire [31:0] pl_rate = pl_from_c ? c_rate_reg : p_rate_reg;
wire [31:0] pl_target = pl_from_c ? c_target_reg : p_target_reg;
wire [15:0] pl_alpha = pl_from_c ? c_alpha_reg : p_alpha_reg;
wire        pl_running = pl_from_c ? c_running_reg : p_running_reg;
wire        pl_cut_seen = pl_from_c ? c_cut_seen_reg : p_cut_seen_reg;
wire [63:0] pl_alpha_due = pl_from_c ? c_alpha_due_reg : p_alpha_due_reg;
wire [63:0] pl_increase_due = pl_from_c ? c_increase_due_reg : p_increase_due_reg;
wire [31:0] pl_bytes = pl_from_c ? c_bytes_reg : p_bytes_reg;
wire [7:0]  pl_timer_stage = pl_from_c ? c_timer_stage_reg : p_timer_stage_reg;
wire [7:0]  pl_byte_stage = pl_from_c ? c_byte_stage_reg : p_byte_stage_reg;

// Expiries due by the event's tick (the alpha timer runs while alpha > 0).
wire        pl_alpha_first = pl_alpha != 0 && pl_alpha_due <= pl_increase_due;
wire        pl_alpha_expired = pl_alpha_due <= pl_time;
wire        pl_increase_expired = pl_increase_due <= pl_time;
wire        pl_expiry_due = pl_running && (pl_alpha_first ? pl_alpha_expired : pl_increase_expired);

/* verilator lint_off UNUSEDSIGNAL */
// The cut on a CNP: products keep the bits their formula reads.
wire        pl_use_extent = cfg_metaroce && pl_extent_valid;
// An extent above 1.0 (a malformed CNP) counts as 1.0.
wire [15:0] pl_extent = pl_extent_in > FRACTION_ONE ? FRACTION_ONE : pl_extent_in;
wire [15:0] pl_cut_fraction = pl_use_extent ? pl_extent : pl_alpha;
wire [47:0] pl_cut_product = pl_rate * pl_cut_fraction;
wire [47:0] pl_floor_product = pl_rate * cfg_min_dec;
wire [26:0] pl_extent_g = pl_extent * cfg_g;
/* verilator lint_on UNUSEDSIGNAL */
wire [15:0] pl_alpha_gain = pl_use_extent ? pl_extent_g[25:10] : {cfg_g, 5'd0};
wire        pl_clamp_target = cfg_clamp_tgt || pl_timer_stage != 0 || pl_byte_stage != 0;
// rp_rate_reduce_monitor_period: a CNP within the period of the QP's last
// cut changes nothing. Until the first timer increase after a cut,
// increase_due - time_reset is that cut's tick; the period is at most
// time_reset, so a CNP after that increase is past it.
wire [64:0] pl_cnp_plus_reset = {1'b0, pl_time} + {33'd0, cfg_time_reset};
wire [64:0] pl_cut_hold_end = {1'b0, pl_increase_due} + {33'd0, cfg_reduce_period};
wire        pl_cut_held = pl_cut_seen && pl_timer_stage == 8'd0 && pl_cnp_plus_reset < pl_cut_hold_end;
// The byte counter.
wire [32:0] pl_bytes_sum = {1'b0, pl_bytes} + {16'd0, pl_len};

// ---------------------------------------------------------------------------
// C's logic.

// The catch-up loop's step, on C's registers.
wire        c_alpha_first = c_alpha_reg != 0 && c_alpha_due_reg <= c_increase_due_reg;
wire        c_alpha_expired = c_alpha_due_reg <= c_time_reg;
wire        c_increase_expired = c_increase_due_reg <= c_time_reg;
wire        c_expiry_due = c_running_reg && (c_alpha_first ? c_alpha_expired : c_increase_expired);
// What the next step sees once this one is taken: alpha decayed once more,
// the increase after one more timer count.
wire [15:0] c_alpha_decayed_next = alpha_decay(c_alpha_decayed_reg, cfg_g);
wire [41:0] c_timer_inc_next = increase_step(sat_inc(sat_inc(c_timer_stage_reg)), c_byte_stage_reg,
    cfg_threshold, cfg_ai_rate, cfg_hai_rate);

// One increase step: the timer's in the catch-up loop, the byte counter's
// when the event is applied.
wire [1:0]  inc_stage = c_catch_reg ? c_timer_inc_stage_reg : c_byte_inc_stage_reg;
wire [39:0] inc_add = c_catch_reg ? c_timer_inc_add_reg : c_byte_inc_add_reg;
wire [40:0] inc_target_sum = {9'd0, c_target_reg} + {1'd0, inc_add};
wire [31:0] inc_target = inc_stage == STAGE_FAST_RECOVERY ? c_target_reg
    : (inc_target_sum > {9'd0, cfg_line_rate} ? cfg_line_rate : inc_target_sum[31:0]);
// (Rt + Rc) / 2 rounded up, so the rate reaches the target.
/* verilator lint_off UNUSEDSIGNAL */
wire [32:0] inc_rate_sum = {1'b0, inc_target} + {1'b0, c_rate_reg} + 33'd1;
/* verilator lint_on UNUSEDSIGNAL */
wire [31:0] inc_rate = inc_rate_sum[32:1];
wire        inc_changed = inc_rate != c_rate_reg || inc_target != c_target_reg;
wire        converged_after_inc = inc_rate == cfg_line_rate && inc_target == cfg_line_rate && c_alpha_reg == 0;

// The cut.
wire [31:0] rate_cut = c_rate_reg - c_cut_drop_reg;
wire [31:0] rate_cut_limited = rate_cut > c_rate_floor_reg ? rate_cut : c_rate_floor_reg;
wire [31:0] rate_after_cut_raw = c_first_cut_reg ? c_rate_first_reg : rate_cut_limited;
wire [31:0] rate_after_cut = rate_after_cut_raw > cfg_min_rate ? rate_after_cut_raw : cfg_min_rate;

// The state after C's step or event, the rate change it hands out.
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
reg        emit;
reg [63:0] emit_time;
reg [1:0]  emit_stage;
reg [1:0]  emit_trigger;
reg        emit_sent;
// C steps its state in place (catch-up), or takes P's logic's output
// (the next event, or its own event recomputed).
reg        c_step;
reg        c_load;
// The step after this one sees alpha decayed once more / one more timer count.
reg        c_step_alpha;
reg        c_step_increase;

always @* begin
    rate_next = c_rate_reg;
    target_next = c_target_reg;
    alpha_next = c_alpha_reg;
    running_next = c_running_reg;
    cut_seen_next = c_cut_seen_reg;
    alpha_due_next = c_alpha_due_reg;
    increase_due_next = c_increase_due_reg;
    bytes_next = c_bytes_reg;
    timer_stage_next = c_timer_stage_reg;
    byte_stage_next = c_byte_stage_reg;
    emit = 1'b0;
    emit_time = c_time_reg;
    emit_stage = inc_stage;
    emit_trigger = TRIGGER_BYTE_COUNTER;
    emit_sent = 1'b0;
    c_step = 1'b0;
    c_step_alpha = 1'b0;
    c_step_increase = 1'b0;
    c_load = p_move;

    if (c_valid_reg && c_catch_reg) begin
        if (!c_expiry_due) begin
            // Caught up: the state back through P's logic.
            c_load = 1'b1;
        end else if (c_alpha_first) begin
            c_step = 1'b1;
            c_step_alpha = 1'b1;
            alpha_next = c_alpha_decayed_reg;
            alpha_due_next = c_alpha_due_reg + {32'd0, cfg_alpha_period};
            if (c_rate_reg == cfg_line_rate && c_target_reg == cfg_line_rate && c_alpha_decayed_reg == 0) begin
                running_next = 1'b0;
            end
        end else if (out_free) begin
            c_step = 1'b1;
            c_step_increase = 1'b1;
            timer_stage_next = sat_inc(c_timer_stage_reg);
            rate_next = inc_rate;
            target_next = inc_target;
            increase_due_next = c_increase_due_reg + {32'd0, cfg_time_reset};
            if (converged_after_inc) begin
                running_next = 1'b0;
            end
            emit = inc_changed;
            emit_time = c_increase_due_reg;
            emit_trigger = TRIGGER_TIMER;
        end
    end else if (c_leave) begin
        if (c_cnp_reg) begin
            if (!c_cut_held_reg) begin
                rate_next = rate_after_cut;
                target_next = c_clamp_target_reg ? c_rate_reg : c_target_reg;
                alpha_next = c_alpha_decayed_reg + c_alpha_gain_reg;
                running_next = 1'b1;
                cut_seen_next = 1'b1;
                timer_stage_next = 8'd0;
                byte_stage_next = 8'd0;
                bytes_next = 32'd0;
                alpha_due_next = c_cnp_alpha_due_reg;
                increase_due_next = c_cnp_increase_due_reg;
                emit = 1'b1;
                emit_stage = STAGE_CUT;
                emit_trigger = TRIGGER_CNP;
            end
            // Absorbed: the word goes back as caught up, nothing is emitted.
        end else begin
            // Sent bytes: the byte counter (while the timers run), and the
            // packet handed on in this event's last transaction.
            emit_trigger = TRIGGER_SENT;
            emit_stage = STAGE_CUT;
            if (c_running_reg && c_byte_step_reg) begin
                bytes_next = 32'd0;
                byte_stage_next = sat_inc(c_byte_stage_reg);
                rate_next = inc_rate;
                target_next = inc_target;
                if (converged_after_inc) begin
                    running_next = 1'b0;
                end
                if (inc_changed) begin
                    emit_trigger = TRIGGER_BYTE_COUNTER;
                    emit_stage = inc_stage;
                end
            end else if (c_running_reg) begin
                bytes_next = c_bytes_sum_reg;
            end
            emit = 1'b1;
            emit_sent = 1'b1;
        end
    end
end

always @(posedge clk) begin
    // Reset sweep.
    if (init_reg) begin
        init_addr_reg <= init_addr_reg + 1;
        if ({{(32-QP_INDEX_WIDTH){1'b0}}, init_addr_reg} == QP_COUNT - 1) begin
            init_reg <= 1'b0;
        end
    end

    // A.
    if (s_evt_ready) begin
        a_valid_reg <= accept_in_range;
    end
    if (accept_in_range) begin
        a_time_reg <= s_evt_time;
        a_cnp_reg <= s_evt_cnp;
        a_qp_reg <= s_evt_qp[QP_INDEX_WIDTH-1:0];
        a_len_reg <= s_evt_len;
        a_extent_valid_reg <= s_evt_extent_valid;
        a_extent_reg <= s_evt_extent;
    end

    // R.
    if (!r_valid_reg || r_move) begin
        r_valid_reg <= a_move;
    end
    if (a_move) begin
        r_time_reg <= a_time_reg;
        r_cnp_reg <= a_cnp_reg;
        r_qp_reg <= a_qp_reg;
        r_len_reg <= a_len_reg;
        r_extent_valid_reg <= a_extent_valid_reg;
        r_extent_reg <= a_extent_reg;
    end

    // P.
    if (!p_valid_reg || p_move) begin
        p_valid_reg <= r_move;
    end
    if (r_move) begin
        p_time_reg <= r_time_reg;
        p_cnp_reg <= r_cnp_reg;
        p_qp_reg <= r_qp_reg;
        p_len_reg <= r_len_reg;
        p_extent_valid_reg <= r_extent_valid_reg;
        p_extent_reg <= r_extent_reg;
        {p_rate_reg, p_target_reg, p_alpha_reg, p_running_reg, p_cut_seen_reg, p_alpha_due_reg,
         p_increase_due_reg, p_bytes_reg, p_timer_stage_reg, p_byte_stage_reg} <= entry;
    end

    // C.
    if (c_load) begin
        c_valid_reg <= p_move || pl_from_c;
        c_catch_reg <= pl_expiry_due;
        c_time_reg <= pl_time;
        c_cnp_reg <= pl_cnp;
        c_qp_reg <= pl_qp;
        c_len_reg <= pl_len;
        c_extent_valid_reg <= pl_extent_valid;
        c_extent_reg <= pl_extent_in;
        c_rate_reg <= pl_rate;
        c_target_reg <= pl_target;
        c_alpha_reg <= pl_alpha;
        c_running_reg <= pl_running;
        c_cut_seen_reg <= pl_cut_seen;
        c_alpha_due_reg <= pl_alpha_due;
        c_increase_due_reg <= pl_increase_due;
        c_bytes_reg <= pl_bytes;
        c_timer_stage_reg <= pl_timer_stage;
        c_byte_stage_reg <= pl_byte_stage;
        c_alpha_decayed_reg <= alpha_decay(pl_alpha, cfg_g);
        {c_timer_inc_stage_reg, c_timer_inc_add_reg} <= increase_step(sat_inc(pl_timer_stage), pl_byte_stage,
            cfg_threshold, cfg_ai_rate, cfg_hai_rate);
        {c_byte_inc_stage_reg, c_byte_inc_add_reg} <= increase_step(pl_timer_stage, sat_inc(pl_byte_stage),
            cfg_threshold, cfg_ai_rate, cfg_hai_rate);
        c_cut_drop_reg <= pl_cut_product[47:16];
        c_rate_floor_reg <= pl_floor_product[46:15];
        c_alpha_gain_reg <= pl_alpha_gain;
        c_cut_held_reg <= pl_cut_held;
        c_first_cut_reg <= !pl_cut_seen && cfg_first_cnp_rate != 0;
        c_rate_first_reg <= cfg_first_cnp_rate < pl_rate ? cfg_first_cnp_rate : pl_rate;
        c_clamp_target_reg <= pl_clamp_target;
        c_bytes_sum_reg <= pl_bytes_sum[31:0];
        c_byte_step_reg <= pl_bytes_sum >= {1'b0, cfg_byte_reset};
        c_cnp_alpha_due_reg <= pl_time + {32'd0, cfg_alpha_period};
        c_cnp_increase_due_reg <= pl_time + {32'd0, cfg_time_reset};
    end else begin
        if (c_leave) begin
            c_valid_reg <= 1'b0;
        end
        if (c_step) begin
            c_rate_reg <= rate_next;
            c_target_reg <= target_next;
            c_alpha_reg <= alpha_next;
            c_running_reg <= running_next;
            c_alpha_due_reg <= alpha_due_next;
            c_increase_due_reg <= increase_due_next;
            c_timer_stage_reg <= timer_stage_next;
        end
        if (c_step_alpha) begin
            c_alpha_decayed_reg <= c_alpha_decayed_next;
        end
        if (c_step_increase) begin
            {c_timer_inc_stage_reg, c_timer_inc_add_reg} <= c_timer_inc_next;
        end
    end

    // Write-back of the applied event.
    w_valid_reg <= c_leave;
    if (c_leave) begin
        w_qp_reg <= c_qp_reg;
        w_entry_reg <= rp_entry(rate_next, target_next, alpha_next, running_next, cut_seen_next,
            alpha_due_next, increase_due_next, bytes_next, timer_stage_next, byte_stage_next);
    end

    // The rate output.
    if (out_free) begin
        m_rate_valid_reg <= emit;
    end
    if (emit) begin
        m_rate_time_reg <= emit_time;
        m_rate_stage_reg <= emit_stage;
        m_rate_trigger_reg <= emit_trigger;
        m_rate_rate_reg <= rate_next;
        m_rate_target_reg <= target_next;
        m_rate_alpha_reg <= alpha_next;
        m_rate_qp_reg <= {{(24-QP_INDEX_WIDTH){1'b0}}, c_qp_reg};
        m_rate_sent_reg <= emit_sent;
        m_rate_len_reg <= c_len_reg;
    end

    if (rst) begin
        init_reg <= 1'b1;
        init_addr_reg <= 0;
        a_valid_reg <= 1'b0;
        r_valid_reg <= 1'b0;
        p_valid_reg <= 1'b0;
        c_valid_reg <= 1'b0;
        w_valid_reg <= 1'b0;
        m_rate_valid_reg <= 1'b0;
    end
end

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
always @(posedge clk) begin
    if (!rst && c_valid_reg && c_catch_reg) begin
        assert (c_rate_reg <= c_target_reg && c_target_reg <= cfg_line_rate && c_rate_reg >= cfg_min_rate)
        else metaroce_assertion_failed("dcqcn_rp: rates out of order (min <= Rc <= Rt <= line)");
        assert (c_alpha_reg <= FRACTION_ONE)
        else metaroce_assertion_failed("dcqcn_rp: alpha above 1.0");
    end
end
`endif

endmodule

`resetall

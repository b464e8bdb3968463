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
 * the expiries up to the event's tick in closed form (chunks of 2^j
 * expiries, about 2 log2(n) cycles for n), with one rate change, stamped
 * with the last increase's tick, when the rates moved; then it applies the
 * event. The alpha timer stops at alpha 0; a QP at line rate with alpha 0
 * stops both. Every sent-bytes event ends in one transaction that hands the
 * packet on to the pacer (m_rate_sent): its byte-counter step, or trigger 3
 * when nothing changed. The pacer so sees rates and packets in one order.
 *
 * Pipelined (SPEC.md §6.4), an event a cycle for events on different QPs:
 *   A  the event; reads its QP's RAM word;
 *   R  the word arrives (forwarded when the write-back of the read's cycle
 *      was the same QP);
 *   L  the word registered: the ticks' differences to the event's tick,
 *      the headroom to line rate, the stage counts of the next increases;
 *   M  the products: both stage counts times R_HAI (K's load picks one
 *      as the next increase's target step);
 *   K  the catch-up, on K's registers: timer increases a chunk of 2^j
 *      like steps every three cycles (Rt - Rc - a, the shift's choice and
 *      the next run's kind registered, the chunk decided, then taken),
 *      alpha decays a
 *      chunk every four cycles (whether it is due, its entry in the table
 *      of (1 - g)^(2^j), the product, the shift), the two side by side;
 *      then a sent-bytes event is applied (byte counter; its increase is
 *      made in V);
 *   Q, V, C  a CNP's cut: products, sums, compares; C hands out the rate
 *      change and the word for the write-back (W, the next cycle).
 * Items from K on (timer steps' rate changes, applied events, CNPs) go
 * down Q, V, C in order. A, R, L, M move together while K takes; Q, V, C
 * every cycle, into a buffer whose output is m_rate_* (stream_fifo.v): K
 * hands on only while it has room, counted a cycle ahead, so the output's
 * ready reaches no stage's enable. K hands on from registers alone (whether
 * it still catches up is registered, a cycle late but for the event's
 * first cycle in K: an event that catches up stays one cycle more). An
 * event waits in A while a later stage holds an event of its QP that may
 * change the word (not a sent-bytes event of a QP whose timers are
 * stopped), so every read sees the QP's last write; the wait is 7 cycles
 * plus any catch-up of that event in K (with its cycle of lag).
 * A catch-up of n expiries takes at most 2 log2(n) + 2 chunks or halvings
 * (three cycles each) per run of like increases (fast recovery, additive,
 * each hyper step while the timer stage is below the byte stage, the
 * rest), whatever the gap.
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
`include "carry_save.vh"

// Illegal parameters stop elaboration: the instance of a module that does
// not exist names the rule (Icarus Verilog 11 has no elaboration $error).
generate
    if (QP_COUNT < 1 || QP_COUNT > (1 << 24)) begin : g_bad_qp_count
        dcqcn_rp_QP_COUNT_must_be_1_to_2_pow_24 bad_qp_count();
    end
endgenerate

// K's chunk of 2^j increases subtracts (Rt - Rc - a) / 2^(2^j): the shift
// as a one-hot, j = 1..5 a bit each, j >= 6 (or j = 0, whose chunk is the
// single step) the sign.
function [5:0] chunk_shift_choice(input [6:0] j);
    chunk_shift_choice = j == 7'd1 ? 6'b000001 : j == 7'd2 ? 6'b000010 : j == 7'd3 ? 6'b000100
        : j == 7'd4 ? 6'b001000 : j == 7'd5 ? 6'b010000 : 6'b100000;
endfunction

function [7:0] sat_inc(input [7:0] count);
    sat_inc = count == 8'hFF ? 8'hFF : count + 8'd1;
endfunction

// {increase due, alpha decay due} of a running QP: an expiry is due once
// the event's tick is at or past it (the difference's sign clear); alpha
// decays only while above 0.
function [1:0] expiries_due(input running, input alpha_zero, input increase_left_sign, input alpha_left_sign);
    expiries_due = {running && !increase_left_sign, running && !alpha_zero && !alpha_left_sign};
endfunction

// {Rc = line rate, Rc >= line rate - 1}: the flags K keeps beside Rc.
function [1:0] line_flags(input [31:0] rate, input [31:0] line);
    line_flags = {rate == line, {1'b0, rate} + 33'd1 >= {1'b0, line}};
endfunction

// The stage of an increase with these stage counts (before it counts, so
// fast recovery takes F steps), and how many hyper steps it makes:
// {stage, steps}.
function [9:0] increase_kind(input [7:0] timer_stage, input [7:0] byte_stage, input [7:0] threshold);
    reg [7:0] high;
    reg [7:0] low;
    begin
        high = timer_stage > byte_stage ? timer_stage : byte_stage;
        low = timer_stage > byte_stage ? byte_stage : timer_stage;
        if (high < threshold) begin
            increase_kind = {STAGE_FAST_RECOVERY, 8'd0};
        end else if (low > threshold) begin
            increase_kind = {STAGE_HYPER_INCREASE, low - threshold};
        end else begin
            increase_kind = {STAGE_ADDITIVE_INCREASE, 8'd0};
        end
    end
endfunction

// increase_kind's stage alone, its compares side by side (the higher count
// below F: both are; the lower above F: both are), not one after another:
// M and K's next run decide from it in one level of logic after them.
function [1:0] increase_stage(input [7:0] timer_stage, input [7:0] byte_stage, input [7:0] threshold);
    if (timer_stage < threshold && byte_stage < threshold) begin
        increase_stage = STAGE_FAST_RECOVERY;
    end else if (timer_stage > threshold && byte_stage > threshold) begin
        increase_stage = STAGE_HYPER_INCREASE;
    end else begin
        increase_stage = STAGE_ADDITIVE_INCREASE;
    end
endfunction

// What an increase adds to the target (before the line-rate limit): 0 in
// fast recovery, R_AI in additive increase, steps * R_HAI in hyper. M and
// K make it in two halves (m_inc_add); the assertions check them by this.
function [39:0] increase_add(input [1:0] stage, input [7:0] steps, input [31:0] ai_rate, input [31:0] hai_rate);
    reg [39:0] hyper_add;
    begin
        hyper_add = steps * hai_rate;
        case (stage)
            STAGE_HYPER_INCREASE: increase_add = hyper_add;
            STAGE_ADDITIVE_INCREASE: increase_add = {8'd0, ai_rate};
            default: increase_add = 40'd0;
        endcase
    end
endfunction

// The target step of the increase after this one (`stage`, `add`, made at
// stage counts `count` and `other`) counted `count` up, in two halves:
// `hyper_next_add`, what it adds if it is a hyper step (this one's steps
// plus one if the count was the lower stage count, so `low` went up; else
// one step, low = F + 1), then `increase_next` from the counted stage
// counts, `next` = sat_inc(count). K computes the first half in two
// registered steps (k_run_*); an assertion checks them against this.
function [39:0] hyper_next_add(input [7:0] count, input [7:0] other, input [1:0] stage, input [39:0] add,
                               input [31:0] hai_rate);
    hyper_next_add = stage == STAGE_HYPER_INCREASE ? add + (count < other ? {8'd0, hai_rate} : 40'd0)
        : {8'd0, hai_rate};
endfunction

function [41:0] increase_next(
    input [7:0]  next,
    input [7:0]  other,
    input [39:0] hyper_add,
    input [7:0]  threshold,
    input [31:0] ai_rate
);
    case (increase_stage(next, other, threshold))
        STAGE_FAST_RECOVERY: increase_next = {STAGE_FAST_RECOVERY, 40'd0};
        STAGE_HYPER_INCREASE: increase_next = {STAGE_HYPER_INCREASE, hyper_add};
        default: increase_next = {STAGE_ADDITIVE_INCREASE, 8'd0, ai_rate};
    endcase
endfunction

// How many timer increases from timer stage `t` on are like the one at `t`
// (same kind and target step; the byte stage holds during a catch-up):
// {all of them, how many}.
function [9:0] like_increases(input [7:0] t, input [7:0] byte_stage, input [7:0] threshold, input [1:0] stage);
    begin
        case (stage)
            // high < F: until t reaches F.
            STAGE_FAST_RECOVERY: like_increases = {2'b00, threshold - t};
            // t <= F here; hyper once t passes F if the byte stage is past it too.
            STAGE_ADDITIVE_INCREASE: like_increases = byte_stage > threshold
                ? {1'b0, {1'b0, threshold} - {1'b0, t} + 9'd1} : {1'b1, 9'd0};
            // low = t: each step adds R_HAI more until t reaches the byte stage.
            STAGE_HYPER_INCREASE: like_increases = t < byte_stage ? {1'b0, 9'd1} : {1'b1, 9'd0};
            default: like_increases = {1'b1, 9'd0};
        endcase
    end
endfunction

// The timer stage count of a run's last increase, t + like - 1 with the
// run's count from `like_increases`: F - 1 in fast recovery, F in additive
// (a run that ends), t for a hyper step. Known before the chunk's size.
function [7:0] run_last_count(input [7:0] t, input [7:0] threshold, input [1:0] stage);
    begin
        case (stage)
            STAGE_FAST_RECOVERY: run_last_count = threshold - 8'd1;
            STAGE_ADDITIVE_INCREASE: run_last_count = threshold;
            default: run_last_count = t;
        endcase
    end
endfunction

// Entry `index` of the alpha table, as a multiplexer (a computed part-select
// base would synthesize as a multiplier and shifter).
function [16:0] keep_entry(input [16*17-1:0] table_bits, input [3:0] index);
    integer i;
    begin
        keep_entry = 17'd0;
        for (i = 0; i < 16; i = i + 1) begin
            if (index == i[3:0]) begin
                keep_entry = table_bits[i*17 +: 17];
            end
        end
    end
endfunction

// One increase: the target steps up by `add` to at most line rate
// (headroom = line - target), the rate to (target + rate) / 2 rounded up
// (so it reaches the target). Returns {changed, rate, target, headroom}.
// `changed` comes from compares of the inputs, beside the sums: with
// rate <= target <= line, (target + rate + 1) / 2 = rate iff target = rate,
// and so on for each case.
/* verilator lint_off UNUSEDSIGNAL */
function [97:0] increase(
    input [31:0] rate,
    input [31:0] target,
    input [32:0] headroom,
    input [1:0]  stage,
    input [39:0] add,
    input [31:0] line
);
    reg [40:0] left;
    reg [33:0] sum_fast;
    reg [33:0] sum_line;
    reg [31:0] csa_sum;
    reg [31:0] csa_carry;
    reg [33:0] sum_add;
    reg [31:0] rate_new;
    reg [31:0] target_new;
    reg [32:0] headroom_new;
    reg        changed;
    begin
        left = {{8{headroom[32]}}, headroom} - {1'b0, add};
        sum_fast = {2'd0, target} + {2'd0, rate} + 34'd1;
        sum_line = {2'd0, line} + {2'd0, rate} + 34'd1;
        // target + add + rate + 1, carry-save then one carry chain (used
        // when add <= headroom, so add < 2^32).
        csa_sum = target ^ add[31:0] ^ rate;
        csa_carry = (target & add[31:0]) | (target & rate) | (add[31:0] & rate);
        sum_add = {2'd0, csa_sum} + {1'b0, csa_carry, 1'b1};
        if (stage == STAGE_FAST_RECOVERY) begin
            target_new = target;
            headroom_new = headroom;
            rate_new = sum_fast[32:1];
            changed = target != rate;
        end else if (left[40]) begin
            // add > headroom: the target stops at line rate.
            target_new = line;
            headroom_new = 33'd0;
            rate_new = sum_line[32:1];
            changed = headroom != 33'd0 || line != rate;
        end else begin
            target_new = target + add[31:0];
            headroom_new = left[32:0];
            rate_new = sum_add[32:1];
            changed = add != 40'd0 || target != rate;
        end
        increase = {changed, rate_new, target_new, headroom_new};
    end
endfunction

// alpha * (1 - g) = alpha - alpha * g / 2^10, the product rounded up so
// alpha reaches 0 (alpha <= 2^15 and g <= 2^10, so bit 26 is never set).
// The product (a MULT18X18D, 3 ns on an ECP5) is registered before the
// subtraction.
function [15:0] alpha_less(input [15:0] alpha, input [26:0] product);
    alpha_less = alpha - product[25:10] - {15'd0, product[9:0] != 10'd0};
endfunction
/* verilator lint_on UNUSEDSIGNAL */

// ---------------------------------------------------------------------------
// Reset sweep: every QP starts at line rate with the initial alpha, timers
// stopped.
reg                      init_reg = 1'b1;
reg [QP_INDEX_WIDTH-1:0] init_addr_reg = 0;

// A: the event (extent clamped to 1.0 and qualified by the mode).
reg                      a_valid_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0] a_qp_reg;
// A's QP equals the QP register of R, L, M, K, Q, V, C (bits 6..0), kept
// as the stages move (compared when A loads, against what each stage holds
// next), so the hazard is those bits and the stages' flags.
reg [6:0]                a_same_qp_reg;
// a_same_qp_reg & stage_writes but L's bit, a cycle ahead: A's wait reads
// it and L's bit (L's word arrives from the RAM the cycle before).
reg [6:0]                a_block_reg;
// A's fields that only R reads, in two slots: the slot A does not hold
// loads the input every cycle (its enable is a register), and A takes it
// by flipping a_slot_reg when it loads. So A's handshake (s_evt_ready)
// enables a few registers, not these 99 bits: its fan-out across the die
// was the block's worst path.
localparam A_DATA_WIDTH = 64 + 1 + 17 + 1 + 16;
reg                      a_slot_reg = 1'b0;
reg [A_DATA_WIDTH-1:0]   a_slot0_reg;
reg [A_DATA_WIDTH-1:0]   a_slot1_reg;
wire [63:0]              a_time;
wire                     a_cnp;
wire [16:0]              a_len;
wire                     a_use_extent;
wire [15:0]              a_extent;
assign {a_time, a_cnp, a_len, a_use_extent, a_extent} = a_slot_reg ? a_slot1_reg : a_slot0_reg;

// R: the word on `entry`.
reg                      r_valid_reg = 1'b0;
reg [63:0]               r_time_reg;
reg                      r_cnp_reg;
reg [QP_INDEX_WIDTH-1:0] r_qp_reg;
reg [16:0]               r_len_reg;
reg                      r_use_extent_reg;
reg [15:0]               r_extent_reg;

// L: the event and the word.
reg                      l_valid_reg = 1'b0;
reg [63:0]               l_time_reg;
reg                      l_cnp_reg;
reg [QP_INDEX_WIDTH-1:0] l_qp_reg;
reg [16:0]               l_len_reg;
reg                      l_use_extent_reg;
reg [15:0]               l_extent_reg;
reg [31:0]               l_rate_reg;
reg [31:0]               l_target_reg;
reg [15:0]               l_alpha_reg;
reg                      l_running_reg;
reg                      l_cut_seen_reg;
reg [63:0]               l_alpha_due_reg;
reg [63:0]               l_increase_due_reg;
reg [31:0]               l_bytes_reg;
reg [7:0]                l_timer_stage_reg;
reg [7:0]                l_byte_stage_reg;

// M: that, with L's differences, headroom and next increases' kinds.
reg                      m_valid_reg = 1'b0;
reg [63:0]               m_time_reg;
reg                      m_cnp_reg;
reg [QP_INDEX_WIDTH-1:0] m_qp_reg;
reg [16:0]               m_len_reg;
reg                      m_use_extent_reg;
reg [15:0]               m_extent_reg;
reg [31:0]               m_rate_reg;
reg [31:0]               m_target_reg;
reg [15:0]               m_alpha_reg;
reg                      m_running_reg;
reg                      m_cut_seen_reg;
reg [63:0]               m_alpha_due_reg;
reg [63:0]               m_increase_due_reg;
reg [31:0]               m_bytes_reg;
reg [7:0]                m_timer_stage_reg;
reg [7:0]                m_byte_stage_reg;
reg                      m_keeps_reg;
reg [64:0]               m_alpha_left_reg;
reg [64:0]               m_increase_left_reg;
reg [32:0]               m_headroom_reg;
reg [31:0]               m_gap_reg;
reg                      m_rate_line_reg;
reg                      m_rate_near_reg;
reg [7:0]                m_byte_next_reg;
reg [1:0]                m_inc_stage_reg;
reg                      m_low_timer_reg;
// Each stage count times R_HAI in two products by R_HAI's halves (one
// MULT18X18D each, no adder behind them).
reg [23:0]               m_timer_hyper_lo_reg, m_timer_hyper_hi_reg;
reg [23:0]               m_byte_hyper_lo_reg, m_byte_hyper_hi_reg;
reg [32:0]               m_bytes_sum_reg;

// K: the catch-up loop's state.
reg                      k_valid_reg = 1'b0;
reg [63:0]               k_time_reg;
reg                      k_cnp_reg;
reg [QP_INDEX_WIDTH-1:0] k_qp_reg;
reg [16:0]               k_len_reg;
reg                      k_use_extent_reg;
reg [15:0]               k_extent_reg;
reg [31:0]               k_rate_reg;
reg [31:0]               k_target_reg;
reg [15:0]               k_alpha_reg;
// alpha == 0, registered with alpha: the catch-up's end (and so K's
// handshake) waits for no 16-bit compare.
reg                      k_alpha_zero_reg;
reg                      k_running_reg;
reg                      k_cut_seen_reg;
reg [63:0]               k_alpha_due_reg;
reg [63:0]               k_increase_due_reg;
reg [31:0]               k_bytes_reg;
reg [7:0]                k_timer_stage_reg;
reg [7:0]                k_byte_stage_reg;
reg                      k_keeps_reg;
// Event tick - alpha_due, event tick - increase_due (signed): expired by
// their signs.
reg [64:0]               k_alpha_left_reg;
reg [64:0]               k_increase_left_reg;
reg [32:0]               k_headroom_reg;
// Rt - Rc, registered with the rates (a chunk's sums start from it).
reg [31:0]               k_gap_reg;
// Headroom 0 (the target at line rate), registered with the headroom: the
// chunk's sums wait for no 33-bit compare.
reg                      k_at_line_reg;
// Rc = line rate, and Rc >= line rate - 1 (an increase would take Rc to
// line rate if Rt got there), registered with Rc.
reg                      k_rate_line_reg;
reg                      k_rate_near_reg;
reg [7:0]                k_byte_next_reg;
// The next increase, a timer's or the byte counter's: its kind comes from
// the stage counts before it counts.
reg [1:0]                k_inc_stage_reg;
reg [39:0]               k_inc_add_reg;
// A chunk's step, kept beside what it is made of: 0 at line rate, else
// the target step (below 2^31 in a chunk of j >= 1).
reg [31:0]               k_step_reg;
reg                      k_byte_step_reg;
reg [31:0]               k_bytes_sum_reg;
// 2^j * the timer increases' target step (their chunk's j in
// rp_catch_up_chunk).
reg [41:0]               k_inc_chunk_add_reg;
// The catch-up moved the rates (one rate change to hand out), and the
// kind of its last increase.
reg                      k_timer_changed_reg;
reg [1:0]                k_timer_kind_reg;
// A timer increases' chunk in two phases, after a cycle that registers
// its sums' inputs (k_inc_fresh_reg): phase 0 decides on K's registers
// and registers the chunk's result, phase 1 commits it. So the decision's
// compares and the rate arithmetic each end in a register, not in the
// other's enables.
reg                      k_inc_phase_reg;
reg                      k_inc_take_reg;
reg                      k_inc_halve_reg;
reg                      k_inc_ends_run_reg;
// like_increases, registered every cycle; only the run's end (registered
// in phase 0) reads it: phase 0 follows a cycle with no change of K's stage
// counts or kind (cfg_threshold holds while events flow), so it is current.
reg [9:0]                k_like_reg;
reg                      k_chunk_changed_reg;
reg [31:0]               k_chunk_rate_reg;
reg [31:0]               k_chunk_target_reg;
reg [32:0]               k_chunk_headroom_reg;
reg [7:0]                k_chunk_timer_stage_reg;
// The next run's kind and target step, in two stages from K's state (both
// done by the take that ends a run, which waits two cycles after any
// change of that state): first the run's counted last stage count, whether
// it is below the byte stage and this step plus R_HAI; then the kind.
reg [7:0]                k_run_count_reg;
reg                      k_run_below_reg;
reg                      k_run_hyper_reg;
reg [39:0]               k_run_add_hai_reg;
reg [41:0]               k_run_next_reg;
// An alpha decays' chunk in four cycles: its compare is registered (the
// cycle before phase 0 decides), phase 0 takes its table entry, 1 the
// product alpha * keep, 2 the shift.
reg [1:0]                k_alpha_phase_reg;
// k_catching a cycle late (exact when K takes an event, from M's
// registers): the handshakes below read only registers. k_catching never
// rises again within an event, so a late 1 costs a cycle and a late 0
// cannot happen.
reg                      k_catching_reg;
reg [16:0]               k_alpha_keep_reg;
reg [15:0]               k_alpha_product_reg;

// The alpha chunks' table: (1 - g)^(2^j) in Q16 for j = 0..15 (SPEC.md
// §6.4), entry 0 (1024 - g) * 64, each next the square of the one before
// rounded to nearest; one entry every three cycles from one multiplier
// (the entry, its square, the write, each registered), so the table follows
// g within 90 cycles (the reset sweep waits for it).
localparam KEEP_STEPS = 16;
reg [KEEP_STEPS*17-1:0]  keep_table_reg = 0;
reg [3:0]                keep_fill_reg = 4'd0;
reg [1:0]                keep_phase_reg = 2'd0;
reg [16:0]               keep_from_reg;
reg [33:0]               keep_square_reg;
reg [6:0]                keep_age_reg = 7'd0;
integer                  keep_i;

// Q, V, C: items in order. An item hands out a rate change (emit), writes
// a QP's word back (write), or is a CNP still to apply (cnp: both).
reg                      q_valid_reg = 1'b0;
reg                      q_emit_reg;
reg                      q_write_reg;
reg                      q_cnp_reg;
reg                      q_keeps_reg;
reg [QP_INDEX_WIDTH-1:0] q_qp_reg;
reg [63:0]               q_time_reg;
reg [16:0]               q_len_reg;
reg [1:0]                q_stage_reg;
reg [1:0]                q_trigger_reg;
reg                      q_sent_reg;
reg [31:0]               q_rate_reg;
reg [31:0]               q_target_reg;
reg [15:0]               q_alpha_reg;
reg                      q_running_reg;
reg                      q_cut_seen_reg;
reg [63:0]               q_alpha_due_reg;
reg [63:0]               q_increase_due_reg;
reg [31:0]               q_bytes_reg;
reg [7:0]                q_timer_stage_reg;
reg [7:0]                q_byte_stage_reg;
reg                      q_use_extent_reg;
reg [15:0]               q_extent_reg;
reg                      q_cut_held_reg;
// A sent-bytes event's byte counter step: its increase is made in V from
// these (K's rates, headroom and next increase; converged decided in K).
reg                      q_byte_step_reg;
reg [32:0]               q_headroom_reg;
reg [1:0]                q_inc_stage_reg;
reg [39:0]               q_inc_add_reg;
reg                      q_inc_converged_reg;

reg                      v_valid_reg = 1'b0;
reg                      v_emit_reg;
reg                      v_write_reg;
reg                      v_cnp_reg;
reg                      v_keeps_reg;
reg [QP_INDEX_WIDTH-1:0] v_qp_reg;
reg [63:0]               v_time_reg;
reg [16:0]               v_len_reg;
reg [1:0]                v_stage_reg;
reg [1:0]                v_trigger_reg;
reg                      v_sent_reg;
reg [31:0]               v_rate_reg;
reg [31:0]               v_target_reg;
reg [15:0]               v_alpha_reg;
reg                      v_running_reg;
reg                      v_cut_seen_reg;
reg [63:0]               v_alpha_due_reg;
reg [63:0]               v_increase_due_reg;
reg [31:0]               v_bytes_reg;
reg [7:0]                v_timer_stage_reg;
reg [7:0]                v_byte_stage_reg;
reg [26:0]               v_alpha_product_reg;
reg                      v_cut_held_reg;
reg [15:0]               v_cut_low_reg;
reg [31:0]               v_cut_high_reg;
reg [16:0]               v_floor_low_reg;
reg [31:0]               v_floor_high_reg;
reg [15:0]               v_alpha_gain_reg;
reg                      v_first_cut_reg;
reg [31:0]               v_rate_first_reg;
reg                      v_clamp_target_reg;
reg [63:0]               v_cnp_alpha_due_reg;
reg [63:0]               v_cnp_increase_due_reg;

reg                      c_valid_reg = 1'b0;
reg                      c_emit_reg;
reg                      c_write_reg;
reg                      c_cnp_reg;
reg                      c_keeps_reg;
reg [QP_INDEX_WIDTH-1:0] c_qp_reg;
reg [63:0]               c_time_reg;
reg [16:0]               c_len_reg;
reg [1:0]                c_stage_reg;
reg [1:0]                c_trigger_reg;
reg                      c_sent_reg;
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
reg                      c_cut_held_reg;
reg [31:0]               c_rate_cut_reg;
reg [31:0]               c_rate_floor_reg;
reg [15:0]               c_cnp_alpha_reg;
reg                      c_first_cut_reg;
reg [31:0]               c_rate_first_reg;
reg                      c_clamp_target_reg;
reg [63:0]               c_cnp_alpha_due_reg;
reg [63:0]               c_cnp_increase_due_reg;

// Write-back: C's word, written the cycle after.
reg                      w_valid_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0] w_qp_reg;
reg [RP_ENTRY_WIDTH-1:0] w_entry_reg;

// The rate output: a buffer C pushes into on credits (stream_fifo.v).
// OUT_DEPTH entries wait in it, one more in its output register.
localparam OUT_DEPTH = 8;
localparam OUT_WIDTH = 64 + 2 + 2 + 32 + 32 + 16 + 24 + 1 + 17;
localparam OUT_CW = $clog2(OUT_DEPTH + 2);
wire [OUT_CW-1:0] out_count;
// Room for an item K hands on, counted a cycle ahead (registers only).
reg               out_room_reg = 1'b0;

// ---------------------------------------------------------------------------
// K's catch-up state: expiries due are the signs of the differences.
wire k_inc_due, k_alpha_due;
assign {k_inc_due, k_alpha_due} = expiries_due(k_running_reg, k_alpha_zero_reg, k_increase_left_reg[64],
    k_alpha_left_reg[64]);
wire k_catching = k_inc_due || k_alpha_due || k_alpha_phase_reg != 2'd0;

// Handshakes. Q, V and C move every cycle, into the rate output's
// buffer; K hands them an item (the catch-up's rate change, or its event)
// while the buffer has room for it and every item before it; A, R, L and
// M move together while K is empty or hands its event on.
// K's catching-up flag for the event it takes from M, from M's registers.
wire m_catching = |expiries_due(m_running_reg, m_alpha_reg == 16'd0, m_increase_left_reg[64], m_alpha_left_reg[64]);
wire k_timer_emit = k_valid_reg && !k_catching_reg && k_timer_changed_reg && out_room_reg;
wire k_done = k_valid_reg && !k_catching_reg && !k_timer_changed_reg && out_room_reg;
wire front_move = !k_valid_reg || k_done;
// A stage that will write its QP's word back: A waits for it.
wire [6:0] stage_writes = {
    r_valid_reg,
    l_valid_reg && !(!l_cnp_reg && !l_running_reg),
    m_valid_reg && !m_keeps_reg,
    k_valid_reg && !k_keeps_reg,
    q_valid_reg && q_write_reg && !q_keeps_reg,
    v_valid_reg && v_write_reg && !v_keeps_reg,
    c_valid_reg && c_write_reg && !c_keeps_reg};
localparam [6:0] STAGE_L = 7'b0100000;
wire a_hazard = |a_block_reg || |(a_same_qp_reg & stage_writes & STAGE_L);
wire a_move = a_valid_reg && !a_hazard && front_move;
// Each stage's QP register in the next cycle: the stage before's when it
// moves (R takes A's), else its own. Both compared, the moves choosing
// after the compares (they wait for the handshake).
wire [QP_INDEX_WIDTH-1:0] s_evt_index = s_evt_qp[QP_INDEX_WIDTH-1:0];
wire [6:0] evt_same_as = {a_qp_reg == s_evt_index, r_qp_reg == s_evt_index, l_qp_reg == s_evt_index,
    m_qp_reg == s_evt_index, k_qp_reg == s_evt_index, q_qp_reg == s_evt_index, v_qp_reg == s_evt_index};
wire [6:0] evt_same_qp = {
    front_move ? evt_same_as[6:3] : evt_same_as[5:2],
    evt_same_as[2:0]};
// A's event held: the bits move with the stages (R takes A's own QP).
wire [6:0] held_same_qp = {
    front_move || a_same_qp_reg[6],
    front_move ? a_same_qp_reg[6:4] : a_same_qp_reg[5:3],
    a_same_qp_reg[3:1]};
// Each stage's stage_writes bit in the next cycle (L's aside): R takes A's
// event, M L's, K M's while the front moves; Q takes K's event when K hands
// it on (a timer step's change writes nothing); V and C move every cycle.
wire [6:0] writes_next = {
    front_move ? a_move : stage_writes[6],
    1'b0, // L's: not registered
    front_move ? stage_writes[5:4] : stage_writes[4:3],
    k_done && !k_keeps_reg,
    stage_writes[2:1]};

assign s_evt_ready = !init_reg && (!a_valid_reg || a_move);
assign busy = init_reg || a_valid_reg || r_valid_reg || l_valid_reg || m_valid_reg || k_valid_reg
    || q_valid_reg || v_valid_reg || c_valid_reg || w_valid_reg || m_rate_valid;
// A MetaRoCE CNP of extent 0 says no packet was marked: no congestion
// signal, so it is dropped here (SPEC.md §6.4).
wire evt_ignored = s_evt_cnp && cfg_metaroce && s_evt_extent_valid && s_evt_extent == 16'd0;
wire accept_in_range = s_evt_valid && s_evt_ready && {8'd0, s_evt_qp} < QP_COUNT && !evt_ignored;
// A slot's input. An extent above 1.0 (a malformed CNP) counts as 1.0.
wire [A_DATA_WIDTH-1:0] a_data_in = {s_evt_time, s_evt_cnp, s_evt_len, cfg_metaroce && s_evt_extent_valid,
    s_evt_extent > FRACTION_ONE ? FRACTION_ONE : s_evt_extent};

// Per-QP state (qp_rmw_pipe.v): A reads, R sees the word on `entry`
// (forwarded from the write-back of the read's cycle).
wire [RP_ENTRY_WIDTH-1:0] entry;
// The RAM word, packed here and unpacked at L, nowhere else.
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
    .newer_valid(1'b0),
    .newer({RP_ENTRY_WIDTH{1'b0}}),
    .wr_en(init_reg || w_valid_reg),
    .wr_addr(init_reg ? init_addr_reg : w_qp_reg),
    .wr_data(init_reg ? init_entry : w_entry_reg)
);

// ---------------------------------------------------------------------------
// L's logic.
wire [7:0] l_byte_next = sat_inc(l_byte_stage_reg);

// M's logic: the next increase's target step. A hyper step adds
// (low - threshold) * R_HAI: M multiplies both stage counts by R_HAI's
// halves, and K's load picks the lower's products and sums them with
// -threshold * R_HAI (registered from the configuration, which holds
// while events flow), carry-save into one carry chain.
reg  [39:0] threshold_hyper_reg;
wire [39:0] m_hyper_lo = {16'd0, m_low_timer_reg ? m_timer_hyper_lo_reg : m_byte_hyper_lo_reg};
wire [39:0] m_hyper_hi = {m_low_timer_reg ? m_timer_hyper_hi_reg : m_byte_hyper_hi_reg, 16'd0};
wire [39:0] m_hyper_less = ~threshold_hyper_reg;
wire [39:0] m_hyper_add = (m_hyper_lo ^ m_hyper_hi ^ m_hyper_less)
    + {(m_hyper_lo[38:0] & m_hyper_hi[38:0]) | (m_hyper_lo[38:0] & m_hyper_less[38:0])
       | (m_hyper_hi[38:0] & m_hyper_less[38:0]), 1'b1};
wire [39:0] m_inc_add = m_inc_stage_reg == STAGE_HYPER_INCREASE ? m_hyper_add
    : m_inc_stage_reg == STAGE_ADDITIVE_INCREASE ? {8'd0, cfg_ai_rate} : 40'd0;

// ---------------------------------------------------------------------------
// The alpha chunks' table, one entry every three cycles.
/* verilator lint_off UNUSEDSIGNAL */
wire [33:0] keep_rounded = keep_square_reg + 34'h8000;
/* verilator lint_on UNUSEDSIGNAL */
wire        keep_ready = keep_age_reg == 7'd127;
wire        init_at_last = {{(32-QP_INDEX_WIDTH){1'b0}}, init_addr_reg} == QP_COUNT - 1;

// ---------------------------------------------------------------------------
// K's logic: the step, and a sent-bytes event applied.
// The next increase, as a timer's single step (a chunk of j = 0); the byte
// counter's is the same step, made in V (q_inc), K deciding only whether
// it converges.
wire [97:0] k_inc = increase(k_rate_reg, k_target_reg, k_headroom_reg, k_inc_stage_reg, k_inc_add_reg,
    cfg_line_rate);
wire        k_inc_changed = k_inc[97];
wire [31:0] k_inc_rate = k_inc[96:65];
wire [31:0] k_inc_target = k_inc[64:33];
wire [32:0] k_inc_headroom = k_inc[32:0];
// The increase ends at line rate with alpha 0: Rt' = line (so Rc' = line
// iff Rc >= line - 1), Rt' = line being headroom 0 already in fast
// recovery, else add >= headroom.
wire        k_add_reaches_line = {1'b0, k_inc_add_reg} >= {8'd0, k_headroom_reg};
wire        k_inc_converged = k_alpha_zero_reg && k_rate_near_reg
    && (k_inc_stage_reg == STAGE_FAST_RECOVERY ? k_at_line : k_add_reaches_line);
wire        k_at_line = k_at_line_reg;
// The catch-up leaves a QP at line rate with alpha 0: its timers stop.
wire        k_converged = k_rate_line_reg && k_at_line && k_alpha_zero_reg;
wire        k_running_now = k_running_reg && !k_converged;
wire        k_byte_step = !k_cnp_reg && k_running_now && k_byte_step_reg;

// The two timers' chunks.
wire [6:0]  k_inc_j;
wire        k_inc_j_zero;
wire [64:0] k_inc_span;
wire        k_chunk_in_time;
wire        k_inc_climb;
wire        k_inc_fall;
wire        k_inc_chunk;
wire        k_inc_halve;
rp_catch_up_chunk inc_chunk_inst (
    .clk(clk),
    .load(front_move),
    .take(k_inc_chunk),
    .restart(k_inc_ends_run_reg),
    .halve(k_inc_halve),
    .period(cfg_time_reset),
    .left(k_increase_left_reg[63:0]),
    .j(k_inc_j),
    .j_zero(k_inc_j_zero),
    .span(k_inc_span),
    .in_time(k_chunk_in_time),
    .climb(k_inc_climb),
    .fall(k_inc_fall)
);
wire [6:0]  k_alpha_j;
wire        k_alpha_j_zero;
wire [64:0] k_alpha_span;
wire        k_alpha_in_time;
wire        k_alpha_halve;
/* verilator lint_off UNUSEDSIGNAL */
wire        k_alpha_climb;
wire        k_alpha_fall;
/* verilator lint_on UNUSEDSIGNAL */
rp_catch_up_chunk alpha_chunk_inst (
    .clk(clk),
    .load(front_move),
    .take(k_alpha_phase_reg == 2'd2),
    .restart(1'b0),
    .halve(k_alpha_halve),
    .period(cfg_alpha_period),
    .left(k_alpha_left_reg[63:0]),
    .j(k_alpha_j),
    .j_zero(k_alpha_j_zero),
    .span(k_alpha_span),
    .in_time(k_alpha_in_time),
    .climb(k_alpha_climb),
    .fall(k_alpha_fall)
);

// Timer increases (SPEC.md §6.4 step 1): a chunk is 2^j like steps, all due
// when the event's tick is (2^j - 1) periods past the next expiry, none
// crossing line rate. j climbs while chunks fit and falls through the
// binary digits of the rest; after a chunk that ends its run of like
// steps, the next kind is taken and j starts again from 0. 2^j steps of
// target step a leave Rt + 2^j * a and Rt - Rc = a + floor((Rt - Rc - a) /
// 2^(2^j)) (each step halves the distance, rounding down); j = 0 is the
// single step `increase` (which also takes the last one up to line rate).
// Decided in phase 0 (registered with the chunk's result), done in phase 1.
wire [9:0]  k_like = like_increases(k_timer_stage_reg, k_byte_stage_reg, cfg_threshold, k_inc_stage_reg);
wire        k_like_all = k_like[9];
wire        k_chunk_small = k_inc_j <= 7'd8;
wire [8:0]  k_chunk_size = 9'd1 << k_inc_j[3:0];
wire        k_chunk_like = k_inc_j_zero || k_like_all || (k_chunk_small && k_chunk_size <= k_like[8:0]);
wire        k_chunk_ends_run = !k_like_reg[9] && k_chunk_small && k_chunk_size == k_like_reg[8:0];
wire        k_chunk_fits = {9'd0, k_headroom_reg} >= k_inc_chunk_add_reg;
// Rt - Rc - a and the shift's choice (one-hot from j) are registered, so
// the shift is the chunk's sums' only logic before them: a decision waits
// a cycle after the event's load, a chunk's take and a halving (which
// move Rt - Rc, a or j).
wire [33:0] k_gap_less = {2'd0, k_gap_reg} - {2'd0, k_step_reg};
reg  [33:0] k_gap_less_reg;
reg  [5:0]  k_shift_by_reg;
reg         k_inc_fresh_reg = 1'b0;
wire        k_inc_decide = k_valid_reg && k_inc_due && !k_inc_phase_reg && k_inc_fresh_reg;
// The decision's three terms (a 66-bit and a 42-bit compare, and the run's
// count against 2^j) are registered on their own each cycle, as alpha's
// is: phase 0 needs them fresh, so they are a cycle old by then and one
// LUT ands them into the take.
reg         k_inc_in_time_reg = 1'b0;
reg         k_inc_like_reg = 1'b0;
reg         k_inc_fits_reg = 1'b0;
wire        k_chunk_due = k_inc_in_time_reg && k_inc_like_reg && (k_inc_j_zero || k_at_line || k_inc_fits_reg);
assign      k_inc_chunk = k_inc_phase_reg && k_inc_take_reg;
assign      k_inc_halve = k_inc_phase_reg && k_inc_halve_reg;
wire [31:0] k_chunk_add = k_at_line ? 32'd0 : k_inc_chunk_add_reg[31:0];
/* verilator lint_off UNUSEDSIGNAL */
// Each shift on its own (an arithmetic shift inside a wider unsigned
// expression would be a logical one), then chosen by the one-hot.
wire [33:0] k_gap_shifted [0:4];
assign k_gap_shifted[0] = $signed(k_gap_less_reg) >>> 2;
assign k_gap_shifted[1] = $signed(k_gap_less_reg) >>> 4;
assign k_gap_shifted[2] = $signed(k_gap_less_reg) >>> 8;
assign k_gap_shifted[3] = $signed(k_gap_less_reg) >>> 16;
assign k_gap_shifted[4] = $signed(k_gap_less_reg) >>> 32;
wire [33:0] k_gap_halved = ({34{k_shift_by_reg[0]}} & k_gap_shifted[0]) | ({34{k_shift_by_reg[1]}} & k_gap_shifted[1])
    | ({34{k_shift_by_reg[2]}} & k_gap_shifted[2]) | ({34{k_shift_by_reg[3]}} & k_gap_shifted[3])
    | ({34{k_shift_by_reg[4]}} & k_gap_shifted[4]) | ({34{k_shift_by_reg[5]}} & {34{k_gap_less_reg[33]}});
// Rc' = Rt + add - a - halved (mod 2^32), carry-save: the first level
// beside the shift, the second after it, then one carry chain (each
// subtrahend inverted, its +1 in a carry's free low bit).
wire [31:0] k_chunk_target = k_target_reg + k_chunk_add;
wire [31:0] k_csa1_sum = k_target_reg ^ k_chunk_add ^ ~k_step_reg;
wire [31:0] k_csa1_carry = {(k_target_reg[30:0] & k_chunk_add[30:0]) | (k_target_reg[30:0] & ~k_step_reg[30:0])
    | (k_chunk_add[30:0] & ~k_step_reg[30:0]), 1'b1};
wire [31:0] k_csa2_sum = k_csa1_sum ^ k_csa1_carry ^ ~k_gap_halved[31:0];
wire [31:0] k_csa2_carry = {(k_csa1_sum[30:0] & k_csa1_carry[30:0]) | (k_csa1_sum[30:0] & ~k_gap_halved[30:0])
    | (k_csa1_carry[30:0] & ~k_gap_halved[30:0]), 1'b1};
wire [31:0] k_chunk_rate = k_csa2_sum + k_csa2_carry;
wire [31:0] k_next_rate = k_inc_j_zero ? k_inc_rate : k_chunk_rate;
wire [31:0] k_next_target = k_inc_j_zero ? k_inc_target : k_chunk_target;
wire [32:0] k_next_headroom = k_inc_j_zero ? k_inc_headroom : k_headroom_reg - {1'b0, k_chunk_add};
// A chunk moves the rates unless the target stays and Rt - Rc - a is 0 or
// -1 (the shift's fixed points), read before the sums.
wire        k_chunk_changed = k_inc_j_zero ? k_inc_changed
    : k_chunk_add != 32'd0 || !(k_gap_less_reg == 34'd0 || &k_gap_less_reg);
wire [8:0]  k_stage_sum = {1'b0, k_timer_stage_reg} + k_chunk_size;
wire [7:0]  k_next_timer_stage = !k_chunk_small || k_stage_sum[8] ? 8'hFF : k_stage_sum[7:0];
/* verilator lint_on UNUSEDSIGNAL */
// After a chunk that ends its run: the next kind, from its last step's
// count (its halves registered in phase 0; the byte stage holds).
wire [7:0]  k_run_last = run_last_count(k_timer_stage_reg, cfg_threshold, k_inc_stage_reg);
// hyper_next_add from the first stage's registers.
wire [39:0] k_run_hyper_add = !k_run_hyper_reg ? {8'd0, cfg_hai_rate}
    : k_run_below_reg ? k_run_add_hai_reg : k_inc_add_reg;

// Alpha decays: a chunk of 2^j keeps (1 - g)^(2^j) from the table (entry 15
// from j = 15 on): the entry registered, alpha * keep registered, then
// shifted; until alpha is 0.
wire [3:0]  k_keep_index = k_alpha_j > 7'd15 ? 4'd15 : k_alpha_j[3:0];
wire [16:0] k_keep = keep_entry(keep_table_reg, k_keep_index);
/* verilator lint_off UNUSEDSIGNAL */
wire [32:0] k_alpha_chunk_product = k_alpha_reg * k_alpha_keep_reg;
/* verilator lint_on UNUSEDSIGNAL */
// Whether the chunk is due is registered (its compare is a 66-bit carry
// chain, and the decision reaches every enable of the decay): the decision
// waits a cycle after the event's load, a chunk's take and a halving, the
// changes of the compare's inputs.
reg         k_alpha_in_time_reg = 1'b0;
reg         k_alpha_fresh_reg = 1'b0;
wire        k_alpha_decide = k_valid_reg && k_alpha_phase_reg == 2'd0 && k_alpha_due && k_alpha_fresh_reg;
wire        k_alpha_take = k_alpha_decide && k_alpha_in_time_reg;
assign      k_alpha_halve = k_alpha_decide && !k_alpha_in_time_reg && !k_alpha_j_zero;
// rp_rate_reduce_monitor_period: a CNP within the period P of the QP's last
// cut does not cut (it still counts for alpha). Until the first timer increase after a cut,
// increase_due - T is that cut's tick; P <= T, so a CNP after that increase
// is past it. t + T < increase_due + P, as t - increase_due < P - T.
wire [65:0] hold_limit = {34'd0, cfg_reduce_period} - {34'd0, cfg_time_reset};
wire        k_cut_held = k_cut_seen_reg && k_timer_stage_reg == 8'd0
    && $signed({k_increase_left_reg[64], k_increase_left_reg}) < $signed(hold_limit);

// ---------------------------------------------------------------------------
// Q's logic: a CNP's products.
wire [15:0] q_cut_fraction = q_use_extent_reg ? q_extent_reg : q_alpha_reg;
/* verilator lint_off UNUSEDSIGNAL */
wire [26:0] q_extent_g = q_extent_reg * cfg_g;
wire [31:0] q_cut_low = q_rate_reg[15:0] * q_cut_fraction;
wire [31:0] q_floor_low = q_rate_reg[15:0] * cfg_min_dec;
/* verilator lint_on UNUSEDSIGNAL */

// V's logic: a byte counter step's increase (SPEC.md §6.4 step 3).
/* verilator lint_off UNUSEDSIGNAL */
wire [97:0] q_inc = increase(q_rate_reg, q_target_reg, q_headroom_reg, q_inc_stage_reg, q_inc_add_reg,
    cfg_line_rate);
/* verilator lint_on UNUSEDSIGNAL */
wire        q_inc_changed = q_inc[97];
wire [31:0] q_inc_rate = q_inc[96:65];
wire [31:0] q_inc_target = q_inc[64:33];

// V's logic: the products summed.
/* verilator lint_off UNUSEDSIGNAL */
wire [31:0] v_cut_drop = v_cut_high_reg + {16'd0, v_cut_low_reg};
wire [31:0] v_floor_sum = v_floor_high_reg + {16'd0, v_floor_low_reg[16:1]};
/* verilator lint_on UNUSEDSIGNAL */

// V's logic: C's compares, each the sign of one carry chain after
// carry-save levels over V's products, so that C only selects. With
// cut = Rc - high - low (exact: high + low = Rc * fraction >> 16 <= Rc)
// and floor = 2 * floor_high + floor_low (exact while min_dec <= 1.0, so
// below 2^32), in 36 bits, where -x - 1 is ~x:
//   cut > min   : Rc + ~high + ~low + ~min + 2 >= 0
//   floor > min : 2 * floor_high + floor_low + ~min >= 0
//   cut > floor : Rc + ~high + ~low + ~(2 * floor_high) + ~floor_low + 3 >= 0
wire [65:0] v_cmp_rate = {34'd0, v_rate_reg};
wire [65:0] v_cmp_high = {34'd0, v_cut_high_reg};
wire [65:0] v_cmp_low = {50'd0, v_cut_low_reg};
wire [65:0] v_cmp_min = {34'd0, cfg_min_rate};
wire [65:0] v_cmp_floor_high = {33'd0, v_floor_high_reg, 1'b0};
wire [65:0] v_cmp_floor_low = {49'd0, v_floor_low_reg};
/* verilator lint_off UNUSEDSIGNAL */
wire [131:0] v_cut_level = csa3(v_cmp_rate, ~v_cmp_high, ~v_cmp_low, 1'b1);
wire [131:0] v_cut_min_level = csa3(v_cut_level[131:66], v_cut_level[65:0], ~v_cmp_min, 1'b1);
wire [65:0]  v_cut_min_diff = v_cut_min_level[131:66] + v_cut_min_level[65:0];
wire [65:0]  v_floor_min_diff = csa3_sum(v_cmp_floor_high, v_cmp_floor_low, ~v_cmp_min, 1'b0);
wire [131:0] v_cut_floor_level = csa3(v_cut_level[131:66], v_cut_level[65:0], ~v_cmp_floor_high, 1'b1);
wire [65:0]  v_cut_floor_diff = csa3_sum(v_cut_floor_level[131:66], v_cut_floor_level[65:0], ~v_cmp_floor_low, 1'b1);
/* verilator lint_on UNUSEDSIGNAL */
reg         c_cut_above_min_reg;
reg         c_floor_above_min_reg;
reg         c_cut_above_floor_reg;
reg         c_first_above_min_reg;

// C's logic: the cut's rate, max(max(cut, floor) or first, min rate), from
// V's compares.
wire        c_cut_above_floor = c_cut_above_floor_reg;
wire        c_cut_above_min = c_cut_above_min_reg;
wire        c_floor_above_min = c_floor_above_min_reg;
wire        c_first_above_min = c_first_above_min_reg;
reg  [31:0] c_cnp_rate;
always @* begin
    if (c_first_cut_reg) begin
        c_cnp_rate = c_first_above_min ? c_rate_first_reg : cfg_min_rate;
    end else if (c_cut_above_floor) begin
        c_cnp_rate = c_cut_above_min ? c_rate_cut_reg : cfg_min_rate;
    end else begin
        c_cnp_rate = c_floor_above_min ? c_rate_floor_reg : cfg_min_rate;
    end
end
wire        c_apply_cut = c_cnp_reg && !c_cut_held_reg;
// A cut's target: the first CNP's rate is both rates (ns-3 cnp_received_mlx);
// later cuts keep Rt at the old Rc when clamping.
wire [31:0] c_cnp_target = c_first_cut_reg ? c_cnp_rate : c_clamp_target_reg ? c_rate_reg : c_target_reg;
// A CNP held by the decrease period still counts for alpha.
wire        c_cnp_absorbed = c_cnp_reg && c_cut_held_reg;

// C's rate change out, through the buffer (its output is the block's).
stream_fifo #(
    .WIDTH(OUT_WIDTH),
    .DEPTH(OUT_DEPTH),
    .CW(OUT_CW)
) out_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_valid(c_valid_reg && (c_emit_reg || c_apply_cut)),
    .s_data({c_time_reg, c_stage_reg, c_trigger_reg, c_apply_cut ? c_cnp_rate : c_rate_reg,
             c_apply_cut ? c_cnp_target : c_target_reg, c_apply_cut ? c_cnp_alpha_reg : c_alpha_reg,
             {{(24-QP_INDEX_WIDTH){1'b0}}, c_qp_reg}, c_sent_reg, c_len_reg}),
    .m_valid(m_rate_valid),
    .m_ready(m_rate_ready),
    .m_data({m_rate_time, m_rate_stage, m_rate_trigger, m_rate_rate, m_rate_target, m_rate_alpha, m_rate_qp,
             m_rate_sent, m_rate_len}),
    .count(out_count)
);

always @(posedge clk) begin
    threshold_hyper_reg <= cfg_threshold * cfg_hai_rate;

    // Reset sweep, until the alpha table is filled too.
    if (init_reg) begin
        init_addr_reg <= init_at_last ? 0 : init_addr_reg + 1;
        if (init_at_last && keep_ready) begin
            init_reg <= 1'b0;
        end
    end

    // The alpha table: entry 0 from g; entry fill + 1 from entry fill, its
    // square written in the third cycle.
    keep_table_reg[16:0] <= {6'd0, 11'd1024 - cfg_g} << 6;
    keep_from_reg <= keep_entry(keep_table_reg, keep_fill_reg);
    keep_square_reg <= keep_from_reg * keep_from_reg;
    keep_phase_reg <= keep_phase_reg == 2'd2 ? 2'd0 : keep_phase_reg + 2'd1;
    for (keep_i = 1; keep_i < KEEP_STEPS; keep_i = keep_i + 1) begin
        if (keep_phase_reg == 2'd2 && {28'd0, keep_fill_reg} == keep_i - 1) begin
            keep_table_reg[keep_i*17 +: 17] <= keep_rounded[32:16];
        end
    end
    if (keep_phase_reg == 2'd2) begin
        keep_fill_reg <= keep_fill_reg == 4'd14 ? 4'd0 : keep_fill_reg + 4'd1;
    end
    if (!keep_ready) begin
        keep_age_reg <= keep_age_reg + 7'd1;
    end

    // A.
    // A's valid, slot and QP registers load whenever it is free (only
    // a_valid_reg needs the event's checks); its slots load every cycle
    // (below).
    if (s_evt_ready) begin
        a_valid_reg <= accept_in_range;
        a_slot_reg <= !a_slot_reg;
        a_qp_reg <= s_evt_qp[QP_INDEX_WIDTH-1:0];
        a_same_qp_reg <= evt_same_qp;
        a_block_reg <= evt_same_qp & writes_next;
    end else begin
        a_same_qp_reg <= held_same_qp;
        a_block_reg <= held_same_qp & writes_next;
    end

    // The slot A does not hold loads the input.
    if (a_slot_reg) begin
        a_slot0_reg <= a_data_in;
    end else begin
        a_slot1_reg <= a_data_in;
    end

    if (front_move) begin
        // R.
        r_valid_reg <= a_move;
        r_time_reg <= a_time;
        r_cnp_reg <= a_cnp;
        r_qp_reg <= a_qp_reg;
        r_len_reg <= a_len;
        r_use_extent_reg <= a_use_extent;
        r_extent_reg <= a_extent;

        // L.
        l_valid_reg <= r_valid_reg;
        l_time_reg <= r_time_reg;
        l_cnp_reg <= r_cnp_reg;
        l_qp_reg <= r_qp_reg;
        l_len_reg <= r_len_reg;
        l_use_extent_reg <= r_use_extent_reg;
        l_extent_reg <= r_extent_reg;
        {l_rate_reg, l_target_reg, l_alpha_reg, l_running_reg, l_cut_seen_reg, l_alpha_due_reg,
         l_increase_due_reg, l_bytes_reg, l_timer_stage_reg, l_byte_stage_reg} <= entry;

        // M.
        m_valid_reg <= l_valid_reg;
        m_time_reg <= l_time_reg;
        m_cnp_reg <= l_cnp_reg;
        m_qp_reg <= l_qp_reg;
        m_len_reg <= l_len_reg;
        m_use_extent_reg <= l_use_extent_reg;
        m_extent_reg <= l_extent_reg;
        m_rate_reg <= l_rate_reg;
        m_target_reg <= l_target_reg;
        m_alpha_reg <= l_alpha_reg;
        m_running_reg <= l_running_reg;
        m_cut_seen_reg <= l_cut_seen_reg;
        m_alpha_due_reg <= l_alpha_due_reg;
        m_increase_due_reg <= l_increase_due_reg;
        m_bytes_reg <= l_bytes_reg;
        m_timer_stage_reg <= l_timer_stage_reg;
        m_byte_stage_reg <= l_byte_stage_reg;
        // A sent-bytes event of a QP whose timers are stopped leaves its word as it is.
        m_keeps_reg <= !l_cnp_reg && !l_running_reg;
        m_alpha_left_reg <= {1'b0, l_time_reg} - {1'b0, l_alpha_due_reg};
        m_increase_left_reg <= {1'b0, l_time_reg} - {1'b0, l_increase_due_reg};
        m_headroom_reg <= {1'b0, cfg_line_rate} - {1'b0, l_target_reg};
        m_gap_reg <= l_target_reg - l_rate_reg;
        {m_rate_line_reg, m_rate_near_reg} <= line_flags(l_rate_reg, cfg_line_rate);
        m_byte_next_reg <= l_byte_next;
        m_inc_stage_reg <= increase_stage(l_timer_stage_reg, l_byte_stage_reg, cfg_threshold);
        m_low_timer_reg <= l_timer_stage_reg <= l_byte_stage_reg;
        m_timer_hyper_lo_reg <= l_timer_stage_reg * cfg_hai_rate[15:0];
        m_timer_hyper_hi_reg <= l_timer_stage_reg * cfg_hai_rate[31:16];
        m_byte_hyper_lo_reg <= l_byte_stage_reg * cfg_hai_rate[15:0];
        m_byte_hyper_hi_reg <= l_byte_stage_reg * cfg_hai_rate[31:16];
        m_bytes_sum_reg <= {1'b0, l_bytes_reg} + {16'd0, l_len_reg};
    end

    // K.
    if (front_move) begin
        k_valid_reg <= m_valid_reg;
        k_time_reg <= m_time_reg;
        k_cnp_reg <= m_cnp_reg;
        k_qp_reg <= m_qp_reg;
        k_len_reg <= m_len_reg;
        k_use_extent_reg <= m_use_extent_reg;
        k_extent_reg <= m_extent_reg;
        k_rate_reg <= m_rate_reg;
        k_target_reg <= m_target_reg;
        k_alpha_reg <= m_alpha_reg;
        k_alpha_zero_reg <= m_alpha_reg == 16'd0;
        k_running_reg <= m_running_reg;
        k_cut_seen_reg <= m_cut_seen_reg;
        k_alpha_due_reg <= m_alpha_due_reg;
        k_increase_due_reg <= m_increase_due_reg;
        k_bytes_reg <= m_bytes_reg;
        k_timer_stage_reg <= m_timer_stage_reg;
        k_byte_stage_reg <= m_byte_stage_reg;
        k_keeps_reg <= m_keeps_reg;
        k_alpha_left_reg <= m_alpha_left_reg;
        k_increase_left_reg <= m_increase_left_reg;
        k_headroom_reg <= m_headroom_reg;
        k_at_line_reg <= m_headroom_reg == 33'd0;
        k_gap_reg <= m_gap_reg;
        k_rate_line_reg <= m_rate_line_reg;
        k_rate_near_reg <= m_rate_near_reg;
        k_byte_next_reg <= m_byte_next_reg;
        k_inc_stage_reg <= m_inc_stage_reg;
        k_inc_add_reg <= m_inc_add;
        k_step_reg <= m_headroom_reg == 33'd0 ? 32'd0 : m_inc_add[31:0];
        k_byte_step_reg <= m_bytes_sum_reg >= {1'b0, cfg_byte_reset};
        k_bytes_sum_reg <= m_bytes_sum_reg[31:0];
        k_inc_chunk_add_reg <= {2'd0, m_inc_add};
        k_timer_changed_reg <= 1'b0;
        k_timer_kind_reg <= m_inc_stage_reg;
        k_alpha_phase_reg <= 2'd0;
        k_inc_phase_reg <= 1'b0;
        k_catching_reg <= m_catching;
    end else begin
        k_catching_reg <= k_catching;
        // Timer increases: phase 0 decides a chunk (or a halving) and
        // registers its result; phase 1 takes it (rp_catch_up_chunk moves
        // its j).
        k_inc_phase_reg <= k_inc_decide;
        if (k_inc_chunk) begin
            k_rate_reg <= k_chunk_rate_reg;
            k_target_reg <= k_chunk_target_reg;
            k_headroom_reg <= k_chunk_headroom_reg;
            k_at_line_reg <= k_chunk_headroom_reg == 33'd0;
            k_gap_reg <= k_chunk_target_reg - k_chunk_rate_reg;
            {k_rate_line_reg, k_rate_near_reg} <= line_flags(k_chunk_rate_reg, cfg_line_rate);
            k_timer_stage_reg <= k_chunk_timer_stage_reg;
            k_increase_due_reg <= k_increase_due_reg + k_inc_span[63:0];
            k_increase_left_reg <= k_increase_left_reg - k_inc_span[64:0];
            k_timer_changed_reg <= k_timer_changed_reg || k_chunk_changed_reg;
            k_timer_kind_reg <= k_inc_stage_reg;
            k_step_reg <= k_chunk_headroom_reg == 33'd0 ? 32'd0
                : (k_inc_ends_run_reg ? k_run_next_reg[31:0] : k_inc_add_reg[31:0]);
            if (k_inc_ends_run_reg) begin
                {k_inc_stage_reg, k_inc_add_reg} <= k_run_next_reg;
                k_inc_chunk_add_reg <= {2'd0, k_run_next_reg[39:0]};
            end
        end
        if (k_inc_climb) begin
            k_inc_chunk_add_reg <= k_inc_chunk_add_reg << 1;
        end else if (k_inc_fall) begin
            k_inc_chunk_add_reg <= k_inc_chunk_add_reg >> 1;
        end
        if (k_timer_emit) begin
            k_timer_changed_reg <= 1'b0;
        end

        // Alpha decays: a chunk's entry, its product, its shift.
        if (k_alpha_take) begin
            k_alpha_keep_reg <= k_keep;
            k_alpha_phase_reg <= 2'd1;
        end
        if (k_alpha_phase_reg == 2'd1) begin
            k_alpha_product_reg <= k_alpha_chunk_product[31:16];
            k_alpha_phase_reg <= 2'd2;
        end
        if (k_alpha_phase_reg == 2'd2) begin
            k_alpha_phase_reg <= 2'd0;
            k_alpha_reg <= k_alpha_product_reg;
            k_alpha_zero_reg <= k_alpha_product_reg == 16'd0;
            k_alpha_due_reg <= k_alpha_due_reg + k_alpha_span[63:0];
            k_alpha_left_reg <= k_alpha_left_reg - k_alpha_span[64:0];
        end
    end

    // A timer increases' chunk decided in phase 0: K's state holds into
    // phase 1, so these need no enable.
    k_alpha_in_time_reg <= k_alpha_in_time;
    k_alpha_fresh_reg <= !front_move && k_alpha_phase_reg != 2'd2 && !k_alpha_halve;
    k_gap_less_reg <= k_gap_less;
    k_shift_by_reg <= chunk_shift_choice(k_inc_j);
    k_inc_fresh_reg <= !front_move && !k_inc_chunk && !k_inc_halve;
    k_inc_in_time_reg <= k_chunk_in_time;
    k_inc_like_reg <= k_chunk_like;
    k_inc_fits_reg <= k_chunk_fits;
    k_inc_take_reg <= k_chunk_due;
    k_inc_halve_reg <= !k_chunk_due && !k_inc_j_zero;
    k_like_reg <= k_like;
    k_inc_ends_run_reg <= k_chunk_ends_run;
    k_chunk_changed_reg <= k_chunk_changed;
    k_chunk_rate_reg <= k_next_rate;
    k_chunk_target_reg <= k_next_target;
    k_chunk_headroom_reg <= k_next_headroom;
    k_chunk_timer_stage_reg <= k_next_timer_stage;
    k_run_count_reg <= sat_inc(k_run_last);
    k_run_below_reg <= k_run_last < k_byte_stage_reg;
    k_run_hyper_reg <= k_inc_stage_reg == STAGE_HYPER_INCREASE;
    k_run_add_hai_reg <= k_inc_add_reg + {8'd0, cfg_hai_rate};
    k_run_next_reg <= increase_next(k_run_count_reg, k_byte_stage_reg, k_run_hyper_add, cfg_threshold, cfg_ai_rate);

    // Q, V and C move every cycle.
    // Q: K's item (a timer increase's change, or its event done). Q's
    // fields matter only when it takes one, and then K's item is a timer
    // step's change exactly when k_timer_changed_reg is set, so the fields
    // select on that register, not on the handshake (out_room_reg and K's
    // valid and catching bits stay off these paths).
    q_valid_reg <= k_timer_emit || k_done;
    q_emit_reg <= k_timer_changed_reg || !k_cnp_reg;
    q_write_reg <= !k_timer_changed_reg;
    q_cnp_reg <= !k_timer_changed_reg && k_cnp_reg;
    q_keeps_reg <= k_keeps_reg;
    q_qp_reg <= k_qp_reg;
    // The catch-up's change is stamped with its last increase's tick.
    q_time_reg <= k_timer_changed_reg ? k_increase_due_reg - {32'd0, cfg_time_reset} : k_time_reg;
    q_len_reg <= k_len_reg;
    q_sent_reg <= !k_timer_changed_reg && !k_cnp_reg;
    q_byte_step_reg <= !k_timer_changed_reg && k_byte_step;
    q_headroom_reg <= k_headroom_reg;
    q_inc_stage_reg <= k_inc_stage_reg;
    q_inc_add_reg <= k_inc_add_reg;
    q_inc_converged_reg <= k_inc_converged;
    q_rate_reg <= k_rate_reg;
    q_target_reg <= k_target_reg;
    q_alpha_reg <= k_alpha_reg;
    q_running_reg <= k_running_now;
    q_cut_seen_reg <= k_cut_seen_reg;
    q_alpha_due_reg <= k_alpha_due_reg;
    q_increase_due_reg <= k_increase_due_reg;
    q_bytes_reg <= k_bytes_reg;
    q_timer_stage_reg <= k_timer_stage_reg;
    q_byte_stage_reg <= k_byte_stage_reg;
    q_use_extent_reg <= k_use_extent_reg;
    q_extent_reg <= k_extent_reg;
    q_cut_held_reg <= k_cut_held;
    q_stage_reg <= STAGE_CUT;
    q_trigger_reg <= TRIGGER_CNP;
    if (k_timer_changed_reg) begin
        q_stage_reg <= k_timer_kind_reg;
        q_trigger_reg <= TRIGGER_TIMER;
    end else if (!k_cnp_reg) begin
        // Sent bytes: the byte counter (while the timers run), and the
        // packet handed on in this event's last transaction.
        q_trigger_reg <= TRIGGER_SENT;
        if (k_byte_step) begin
            q_bytes_reg <= 32'd0;
            q_byte_stage_reg <= k_byte_next_reg;
        end else if (k_running_now) begin
            q_bytes_reg <= k_bytes_sum_reg;
        end
    end

    // V.
    v_valid_reg <= q_valid_reg;
    v_emit_reg <= q_emit_reg;
    v_write_reg <= q_write_reg;
    v_cnp_reg <= q_cnp_reg;
    v_keeps_reg <= q_keeps_reg;
    v_qp_reg <= q_qp_reg;
    v_time_reg <= q_time_reg;
    v_len_reg <= q_len_reg;
    v_stage_reg <= q_stage_reg;
    v_trigger_reg <= q_trigger_reg;
    v_sent_reg <= q_sent_reg;
    v_rate_reg <= q_rate_reg;
    v_target_reg <= q_target_reg;
    v_alpha_reg <= q_alpha_reg;
    v_running_reg <= q_running_reg;
    // The byte counter's increase; a QP it leaves at line rate with
    // alpha 0 stops its timers.
    if (q_byte_step_reg) begin
        v_rate_reg <= q_inc_rate;
        v_target_reg <= q_inc_target;
        if (q_inc_converged_reg) begin
            v_running_reg <= 1'b0;
        end
        if (q_inc_changed) begin
            v_trigger_reg <= TRIGGER_BYTE_COUNTER;
            v_stage_reg <= q_inc_stage_reg;
        end
    end
    v_cut_seen_reg <= q_cut_seen_reg;
    v_alpha_due_reg <= q_alpha_due_reg;
    v_increase_due_reg <= q_increase_due_reg;
    v_bytes_reg <= q_bytes_reg;
    v_timer_stage_reg <= q_timer_stage_reg;
    v_byte_stage_reg <= q_byte_stage_reg;
    v_alpha_product_reg <= q_alpha_reg * cfg_g;
    v_cut_held_reg <= q_cut_held_reg;
    // rate * fraction and rate * min_dec in 16-bit halves of the rate.
    v_cut_low_reg <= q_cut_low[31:16];
    v_cut_high_reg <= q_rate_reg[31:16] * q_cut_fraction;
    v_floor_low_reg <= q_floor_low[31:15];
    v_floor_high_reg <= q_rate_reg[31:16] * cfg_min_dec;
    v_alpha_gain_reg <= q_use_extent_reg ? q_extent_g[25:10] : {cfg_g, 5'd0};
    v_first_cut_reg <= !q_cut_seen_reg && cfg_first_cnp_rate != 0;
    v_rate_first_reg <= cfg_first_cnp_rate < q_rate_reg ? cfg_first_cnp_rate : q_rate_reg;
    v_clamp_target_reg <= cfg_clamp_tgt || q_timer_stage_reg != 0 || q_byte_stage_reg != 0;
    v_cnp_alpha_due_reg <= q_time_reg + {32'd0, cfg_alpha_period};
    v_cnp_increase_due_reg <= q_time_reg + {32'd0, cfg_time_reset};

    // C.
    c_valid_reg <= v_valid_reg;
    c_emit_reg <= v_emit_reg;
    c_write_reg <= v_write_reg;
    c_cnp_reg <= v_cnp_reg;
    c_keeps_reg <= v_keeps_reg;
    c_qp_reg <= v_qp_reg;
    c_time_reg <= v_time_reg;
    c_len_reg <= v_len_reg;
    c_stage_reg <= v_stage_reg;
    c_trigger_reg <= v_trigger_reg;
    c_sent_reg <= v_sent_reg;
    c_rate_reg <= v_rate_reg;
    c_target_reg <= v_target_reg;
    c_alpha_reg <= v_alpha_reg;
    c_running_reg <= v_running_reg;
    c_cut_seen_reg <= v_cut_seen_reg;
    c_alpha_due_reg <= v_alpha_due_reg;
    c_increase_due_reg <= v_increase_due_reg;
    c_bytes_reg <= v_bytes_reg;
    c_timer_stage_reg <= v_timer_stage_reg;
    c_byte_stage_reg <= v_byte_stage_reg;
    c_cut_held_reg <= v_cut_held_reg;
    c_rate_cut_reg <= v_rate_reg - v_cut_drop;
    c_rate_floor_reg <= {v_floor_sum[30:0], v_floor_low_reg[0]};
    c_cnp_alpha_reg <= alpha_less(v_alpha_reg, v_alpha_product_reg) + v_alpha_gain_reg;
    c_first_cut_reg <= v_first_cut_reg;
    c_rate_first_reg <= v_rate_first_reg;
    c_cut_above_min_reg <= !v_cut_min_diff[35];
    c_floor_above_min_reg <= !v_floor_min_diff[35];
    c_cut_above_floor_reg <= !v_cut_floor_diff[35];
    c_first_above_min_reg <= v_rate_first_reg > cfg_min_rate;
    c_clamp_target_reg <= v_clamp_target_reg;
    c_cnp_alpha_due_reg <= v_cnp_alpha_due_reg;
    c_cnp_increase_due_reg <= v_cnp_increase_due_reg;

    // C's item out: the rate change, and the word (a cut applied) to W.
    w_valid_reg <= c_valid_reg && c_write_reg;
    w_qp_reg <= c_qp_reg;
    if (c_apply_cut) begin
        w_entry_reg <= rp_entry(c_cnp_rate, c_cnp_target, c_cnp_alpha_reg, 1'b1, 1'b1,
            c_cnp_alpha_due_reg, c_cnp_increase_due_reg, 32'd0, 8'd0, 8'd0);
    end else if (c_cnp_absorbed) begin
        w_entry_reg <= rp_entry(c_rate_reg, c_target_reg, c_cnp_alpha_reg, c_running_reg, c_cut_seen_reg,
            c_cnp_alpha_due_reg, c_increase_due_reg, c_bytes_reg, c_timer_stage_reg, c_byte_stage_reg);
    end else begin
        w_entry_reg <= rp_entry(c_rate_reg, c_target_reg, c_alpha_reg, c_running_reg, c_cut_seen_reg,
            c_alpha_due_reg, c_increase_due_reg, c_bytes_reg, c_timer_stage_reg, c_byte_stage_reg);
    end
    // Every item in Q, V and C may take an entry; so may the one K hands
    // on this cycle, and the one after (this register is a cycle late).
    out_room_reg <= {1'b0, out_count} + {{OUT_CW{1'b0}}, q_valid_reg} + {{OUT_CW{1'b0}}, v_valid_reg}
        + {{OUT_CW{1'b0}}, c_valid_reg} <= OUT_DEPTH + 1 - 2;

    if (rst) begin
        init_reg <= 1'b1;
        init_addr_reg <= 0;
        a_valid_reg <= 1'b0;
        r_valid_reg <= 1'b0;
        l_valid_reg <= 1'b0;
        m_valid_reg <= 1'b0;
        k_valid_reg <= 1'b0;
        q_valid_reg <= 1'b0;
        v_valid_reg <= 1'b0;
        c_valid_reg <= 1'b0;
        w_valid_reg <= 1'b0;
        out_room_reg <= 1'b0;
    end
end

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
wire [9:0] m_inc_kind = increase_kind(m_timer_stage_reg, m_byte_stage_reg, cfg_threshold);
always @(posedge clk) begin
    if (!rst && a_valid_reg) begin
        assert (a_same_qp_reg == {r_qp_reg == a_qp_reg, l_qp_reg == a_qp_reg, m_qp_reg == a_qp_reg,
                                  k_qp_reg == a_qp_reg, q_qp_reg == a_qp_reg, v_qp_reg == a_qp_reg,
                                  c_qp_reg == a_qp_reg})
        else metaroce_assertion_failed("dcqcn_rp: A's same-QP bits out of step with the stages");
        assert (a_block_reg == (a_same_qp_reg & stage_writes & ~STAGE_L))
        else metaroce_assertion_failed("dcqcn_rp: A's registered wait bits out of step with the stages");
    end
    if (!rst && q_valid_reg && q_byte_step_reg) begin
        assert (q_inc_changed == (q_inc_rate != q_rate_reg || q_inc_target != q_target_reg))
        else metaroce_assertion_failed("dcqcn_rp: Q's increase misjudged as a change");
    end
    if (!rst && m_valid_reg) begin
        assert (m_inc_stage_reg == m_inc_kind[9:8]
                && m_inc_add == increase_add(m_inc_stage_reg, m_inc_kind[7:0], cfg_ai_rate, cfg_hai_rate))
        else metaroce_assertion_failed("dcqcn_rp: M's increase step misjudged");
    end
    if (!rst && k_valid_reg) begin
        assert (k_rate_reg <= k_target_reg && k_target_reg <= cfg_line_rate && k_rate_reg >= cfg_min_rate)
        else metaroce_assertion_failed("dcqcn_rp: rates out of order (min <= Rc <= Rt <= line)");
        assert (!k_alpha_fresh_reg || k_alpha_in_time_reg == k_alpha_in_time)
        else metaroce_assertion_failed("dcqcn_rp: the alpha chunk's registered compare is stale");
        assert (k_alpha_reg <= FRACTION_ONE)
        else metaroce_assertion_failed("dcqcn_rp: alpha above 1.0");
        assert (k_catching_reg || !k_catching)
        else metaroce_assertion_failed("dcqcn_rp: K's catching-up flag late to rise");
        assert (k_alpha_zero_reg == (k_alpha_reg == 16'd0))
        else metaroce_assertion_failed("dcqcn_rp: alpha's zero flag out of step");
        assert (k_at_line_reg == (k_headroom_reg == 33'd0))
        else metaroce_assertion_failed("dcqcn_rp: the line-rate flag out of step");
        assert (k_step_reg == (k_at_line_reg ? 32'd0 : k_inc_add_reg[31:0]))
        else metaroce_assertion_failed("dcqcn_rp: K's chunk step out of step");
        assert (!k_inc_fresh_reg || (k_gap_less_reg == k_gap_less && k_shift_by_reg == chunk_shift_choice(k_inc_j)))
        else metaroce_assertion_failed("dcqcn_rp: the chunk's registered Rt - Rc - a or shift is stale");
        assert (!k_inc_fresh_reg || (k_inc_in_time_reg == k_chunk_in_time && k_inc_like_reg == k_chunk_like
                && k_inc_fits_reg == k_chunk_fits))
        else metaroce_assertion_failed("dcqcn_rp: the chunk decision's registered terms are stale");
        assert (!k_inc_fresh_reg || k_like_reg == k_like)
        else metaroce_assertion_failed("dcqcn_rp: the registered count of like increases is stale");
        assert (!k_inc_chunk || !k_inc_ends_run_reg || k_run_next_reg == increase_next(sat_inc(k_run_last),
                k_byte_stage_reg, hyper_next_add(k_run_last, k_byte_stage_reg, k_inc_stage_reg, k_inc_add_reg,
                cfg_hai_rate), cfg_threshold, cfg_ai_rate))
        else metaroce_assertion_failed("dcqcn_rp: the next run's registered kind is stale");
        assert (k_chunk_rate == k_chunk_target - k_step_reg - k_gap_halved[31:0])
        else metaroce_assertion_failed("dcqcn_rp: the chunk's carry-save sum is wrong");
        assert (!c_valid_reg || (c_cut_above_min_reg == (c_rate_cut_reg > cfg_min_rate)
                && c_floor_above_min_reg == (c_rate_floor_reg > cfg_min_rate)
                && c_cut_above_floor_reg == (c_rate_cut_reg > c_rate_floor_reg)
                && c_first_above_min_reg == (c_rate_first_reg > cfg_min_rate)))
        else metaroce_assertion_failed("dcqcn_rp: C's compares from V disagree with C's values");
        assert (k_gap_reg == k_target_reg - k_rate_reg)
        else metaroce_assertion_failed("dcqcn_rp: Rt - Rc out of step");
        assert ({k_rate_line_reg, k_rate_near_reg} == line_flags(k_rate_reg, cfg_line_rate))
        else metaroce_assertion_failed("dcqcn_rp: the rate's line flags out of step");
        assert (k_inc_changed == (k_inc_rate != k_rate_reg || k_inc_target != k_target_reg))
        else metaroce_assertion_failed("dcqcn_rp: K's increase misjudged as a change");
        assert (k_inc_converged == (k_inc_rate == cfg_line_rate && k_inc_headroom == 33'd0 && k_alpha_zero_reg))
        else metaroce_assertion_failed("dcqcn_rp: an increase's convergence misjudged");
    end
end
`endif

endmodule

`resetall

// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The pacer's GCRA (SPEC.md §7.3), pipelined: a packet's eligible time and
 * its QP's state after it, from the QP's word and the command's now. The
 * arithmetic of golden/src/pacer.rs `Pacer::command`, one carry chain per
 * stage:
 *
 *   tau       = burst_bytes * byte_time
 *   eligible  = max(now, TAT - tau (0 if negative), gap_ready)
 *   TAT'      = max(TAT, eligible) + len * byte_time
 *             = max(TAT, now, gap_ready) + len * byte_time (TAT - tau <= TAT)
 *   gap_ready'= eligible + min_gap * 2^20
 *
 * Stage 0 registers the inputs (the QP RAM's output); 1: the products in
 * 18-bit pieces (MULT18X18D) and the comparisons of TAT, now and
 * gap_ready; 2: the products summed (carry-save, then one adder) and
 * max(TAT, now, gap_ready); 3: TAT - tau and TAT'; 4: eligible; 5:
 * gap_ready'. No stalls, no valid: inputs at cycle c give `eligible` and
 * `tat_after` at cycle c+5 and `gap_ready_after` at c+6, for one cycle.
 *
 * | port            | width | meaning                                    |
 * |-----------------|-------|--------------------------------------------|
 * | tat, gap_ready  | 64    | the QP's TAT and earliest next eligible    |
 * |                 |       | time (ns, Q44.20)                          |
 * | byte_time       | 40    | the QP's ns per byte (Q20.20)              |
 * | now             | 64    | the command's now (ns, Q44.20)             |
 * | len             | 17    | the packet, bytes                          |
 * | burst_bytes     | 16    | register burst_bytes                       |
 * | min_gap         | 32    | register min_gap_ns (ns)                   |
 * | word_*          |       | stage 0's TAT, gap_ready and byte_time:    |
 * |                 |       | the QP word of the cycle before (the only  |
 * |                 |       | load of the QP RAM's output)               |
 */
module pacer_gcra (
    input  wire         clk,
    input  wire [63:0]  tat,
    input  wire [63:0]  gap_ready,
    input  wire [39:0]  byte_time,
    input  wire [63:0]  now,
    input  wire [16:0]  len,
    input  wire [15:0]  burst_bytes,
    input  wire [31:0]  min_gap,
    output wire [63:0]  eligible,
    output wire [63:0]  tat_after,
    output wire [63:0]  gap_ready_after,
    output wire [63:0]  word_tat,
    output wire [63:0]  word_gap_ready,
    output wire [39:0]  word_byte_time
);

localparam FRAC_BITS = 20;

// Stage 0.
reg [63:0] s0_tat_reg, s0_gap_reg, s0_now_reg;
reg [39:0] s0_bt_reg;
reg [16:0] s0_len_reg;
reg [15:0] s0_burst_reg;
reg [31:0] s0_min_gap_reg;
always @(posedge clk) begin
    s0_tat_reg <= tat;
    s0_gap_reg <= gap_ready;
    s0_now_reg <= now;
    s0_bt_reg <= byte_time;
    s0_len_reg <= len;
    s0_burst_reg <= burst_bytes;
    s0_min_gap_reg <= min_gap;
end

// Stage 1: byte_time in pieces of 18, 18 and 4 bits.
wire [17:0] bt0 = s0_bt_reg[17:0];
wire [17:0] bt1 = s0_bt_reg[35:18];
wire [3:0]  bt2 = s0_bt_reg[39:36];
reg [33:0] s1_tau0_reg, s1_tau1_reg;
reg [19:0] s1_tau2_reg;
reg [34:0] s1_cost0_reg, s1_cost1_reg;
reg [20:0] s1_cost2_reg;
reg        s1_tat_gt_now_reg, s1_tat_gt_gap_reg, s1_now_gt_gap_reg;
reg [63:0] s1_tat_reg, s1_gap_reg, s1_now_reg;
reg [31:0] s1_min_gap_reg;
always @(posedge clk) begin
    s1_tau0_reg <= s0_burst_reg * bt0;
    s1_tau1_reg <= s0_burst_reg * bt1;
    s1_tau2_reg <= s0_burst_reg * bt2;
    s1_cost0_reg <= s0_len_reg * bt0;
    s1_cost1_reg <= s0_len_reg * bt1;
    s1_cost2_reg <= s0_len_reg * bt2;
    s1_tat_gt_now_reg <= s0_tat_reg > s0_now_reg;
    s1_tat_gt_gap_reg <= s0_tat_reg > s0_gap_reg;
    s1_now_gt_gap_reg <= s0_now_reg > s0_gap_reg;
    s1_tat_reg <= s0_tat_reg;
    s1_gap_reg <= s0_gap_reg;
    s1_now_reg <= s0_now_reg;
    s1_min_gap_reg <= s0_min_gap_reg;
end

// Stage 2: a + (b << 18) + (c << 36) as a carry-save sum and one adder.
function [57:0] sum3(input [57:0] a, input [57:0] b, input [57:0] c);
    begin
        // The terms are below 2^57: the carry out of bit 57 is zero.
        sum3 = (a ^ b ^ c) + {((a[56:0] & b[56:0]) | (a[56:0] & c[56:0]) | (b[56:0] & c[56:0])), 1'b0};
    end
endfunction

/* verilator lint_off UNUSEDSIGNAL */
wire [57:0] tau_sum = sum3({24'd0, s1_tau0_reg}, {6'd0, s1_tau1_reg, 18'd0}, {2'd0, s1_tau2_reg, 36'd0});
wire [57:0] cost_sum = sum3({23'd0, s1_cost0_reg}, {5'd0, s1_cost1_reg, 18'd0}, {1'd0, s1_cost2_reg, 36'd0});
/* verilator lint_on UNUSEDSIGNAL */
wire [63:0] tat_now = s1_tat_gt_now_reg ? s1_tat_reg : s1_now_reg;
wire        tat_now_gt_gap = s1_tat_gt_now_reg ? s1_tat_gt_gap_reg : s1_now_gt_gap_reg;
reg [55:0] s2_tau_reg;
reg [56:0] s2_cost_reg;
reg [63:0] s2_max_reg;
reg        s2_now_gt_gap_reg;
reg [63:0] s2_tat_reg, s2_gap_reg, s2_now_reg;
reg [31:0] s2_min_gap_reg;
always @(posedge clk) begin
    s2_tau_reg <= tau_sum[55:0];
    s2_cost_reg <= cost_sum[56:0];
    s2_max_reg <= tat_now_gt_gap ? tat_now : s1_gap_reg;
    s2_now_gt_gap_reg <= s1_now_gt_gap_reg;
    s2_tat_reg <= s1_tat_reg;
    s2_gap_reg <= s1_gap_reg;
    s2_now_reg <= s1_now_reg;
    s2_min_gap_reg <= s1_min_gap_reg;
end

// Stage 3.
wire [64:0] tat_less_tau = {1'b0, s2_tat_reg} - {9'd0, s2_tau_reg};
reg [63:0] s3_tlt_reg;
reg [63:0] s3_tat_after_reg;
reg        s3_now_gt_gap_reg;
reg [63:0] s3_gap_reg, s3_now_reg;
reg [31:0] s3_min_gap_reg;
always @(posedge clk) begin
    s3_tlt_reg <= tat_less_tau[64] ? 64'd0 : tat_less_tau[63:0];
    s3_tat_after_reg <= s2_max_reg + {7'd0, s2_cost_reg};
    s3_now_gt_gap_reg <= s2_now_gt_gap_reg;
    s3_gap_reg <= s2_gap_reg;
    s3_now_reg <= s2_now_reg;
    s3_min_gap_reg <= s2_min_gap_reg;
end

// Stage 4: max(now, TAT - tau, gap_ready), two comparisons side by side.
wire        now_gt_tlt = s3_now_reg > s3_tlt_reg;
wire        tlt_gt_gap = s3_tlt_reg > s3_gap_reg;
wire [63:0] first = now_gt_tlt ? s3_now_reg : s3_tlt_reg;
wire        first_gt_gap = now_gt_tlt ? s3_now_gt_gap_reg : tlt_gt_gap;
reg [63:0] s4_eligible_reg;
reg [63:0] s4_tat_after_reg;
reg [31:0] s4_min_gap_reg;
always @(posedge clk) begin
    s4_eligible_reg <= first_gt_gap ? first : s3_gap_reg;
    s4_tat_after_reg <= s3_tat_after_reg;
    s4_min_gap_reg <= s3_min_gap_reg;
end

// Stage 5.
reg [63:0] s5_gap_after_reg;
always @(posedge clk) begin
    s5_gap_after_reg <= s4_eligible_reg + {12'd0, s4_min_gap_reg, {FRAC_BITS{1'b0}}};
end

assign eligible = s4_eligible_reg;
assign tat_after = s4_tat_after_reg;
assign gap_ready_after = s5_gap_after_reg;
assign word_tat = s0_tat_reg;
assign word_gap_ready = s0_gap_reg;
assign word_byte_time = s0_bt_reg;

endmodule

`resetall

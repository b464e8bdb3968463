// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The pacer's GCRA (SPEC.md §7.3), pipelined: a packet's eligible time and
 * its QP's debt after it, from the QP's debt and the command's now. The
 * arithmetic of golden/src/pacer.rs `Pacer::gcra`, one carry chain per
 * stage:
 *
 *   TAT       = base + len * byte_time   (the debt after the QP's last
 *                                         packet, priced at today's rate)
 *   tau       = burst_bytes * byte_time
 *   eligible  = max(now, TAT - tau (0 if negative), gap_ready)
 *   base'     = max(TAT, eligible) = max(TAT, now, gap_ready)
 *   gap_ready'= eligible + min_gap * 2^20
 *
 * The debt is the QP's last one, or (a re-time) the one before its newest
 * packet, chosen by the pacer as it registers the QP's word. The inputs are
 * registers (stage 0: the QP word's registers, the command's now), so the
 * multipliers take registers alone; 1: the products in
 * 18-bit pieces (MULT18X18D); 2: tau summed, TAT (carry-save, then one
 * adder); 3: TAT - tau, TAT's comparisons, and now's and gap_ready's
 * with TAT - tau (each a carry chain beside it); 4: eligible and base',
 * multiplexers; 5: gap_ready'. No stalls, no valid: inputs at cycle c give `eligible` and
 * `base_after` at cycle c+4 and `gap_ready_after` at c+5, while they stay.
 *
 * | port            | width | meaning                                    |
 * |-----------------|-------|--------------------------------------------|
 * | base, len,      | 64,17,| the QP's debt priced from: TAT =           |
 * | gap_ready       | 64    | base + len * byte_time; the earliest next  |
 * |                 |       | eligible time (ns, Q44.20)                 |
 * | byte_time       | 40    | the QP's ns per byte (Q20.20)              |
 * | now             | 64    | the command's now (ns, Q44.20)             |
 * | burst_bytes     | 16    | register burst_bytes                       |
 * | min_gap         | 32    | register min_gap_ns (ns)                   |
 */
module pacer_gcra (
    input  wire         clk,
    input  wire [63:0]  base,
    input  wire [16:0]  len,
    input  wire [63:0]  gap_ready,
    input  wire [39:0]  byte_time,
    input  wire [63:0]  now,
    input  wire [15:0]  burst_bytes,
    input  wire [31:0]  min_gap,
    output wire [63:0]  eligible,
    output wire [63:0]  base_after,
    output wire [63:0]  gap_ready_after
);

localparam FRAC_BITS = 20;

// Stage 1: byte_time in pieces of 18, 18 and 4 bits.
wire [17:0] bt0 = byte_time[17:0];
wire [17:0] bt1 = byte_time[35:18];
wire [3:0]  bt2 = byte_time[39:36];
reg [33:0] s1_tau0_reg, s1_tau1_reg;
reg [19:0] s1_tau2_reg;
reg [34:0] s1_cost0_reg, s1_cost1_reg;
reg [20:0] s1_cost2_reg;
reg        s1_now_gt_gap_reg;
reg [63:0] s1_base_reg, s1_gap_reg, s1_now_reg;
reg [31:0] s1_min_gap_reg;
always @(posedge clk) begin
    s1_tau0_reg <= burst_bytes * bt0;
    s1_tau1_reg <= burst_bytes * bt1;
    s1_tau2_reg <= burst_bytes * bt2;
    s1_cost0_reg <= len * bt0;
    s1_cost1_reg <= len * bt1;
    s1_cost2_reg <= len * bt2;
    s1_now_gt_gap_reg <= now > gap_ready;
    s1_base_reg <= base;
    s1_gap_reg <= gap_ready;
    s1_now_reg <= now;
    s1_min_gap_reg <= min_gap;
end

// Stage 2: carry-save sums, then one adder each.
function [63:0] sum3(input [63:0] a, input [63:0] b, input [63:0] c);
    begin
        sum3 = (a ^ b ^ c) + {(a[62:0] & b[62:0]) | (a[62:0] & c[62:0]) | (b[62:0] & c[62:0]), 1'b0};
    end
endfunction

`include "carry_save.vh"

// The pieces are below 2^57 and so is their sum: the carries out of bit 57 are zero.
wire [63:0] cost0 = {29'd0, s1_cost0_reg};
wire [63:0] cost1 = {11'd0, s1_cost1_reg, 18'd0};
wire [63:0] cost2 = {7'd0, s1_cost2_reg, 36'd0};
wire [63:0] cost_xor = cost0 ^ cost1 ^ cost2;
wire [63:0] cost_carry = {(cost0[62:0] & cost1[62:0]) | (cost0[62:0] & cost2[62:0]) | (cost1[62:0] & cost2[62:0]), 1'b0};
/* verilator lint_off UNUSEDSIGNAL */
wire [63:0] tau_sum = sum3({30'd0, s1_tau0_reg}, {12'd0, s1_tau1_reg, 18'd0}, {8'd0, s1_tau2_reg, 36'd0});
/* verilator lint_on UNUSEDSIGNAL */
reg [55:0] s2_tau_reg;
reg [63:0] s2_tat_reg;
reg        s2_now_gt_gap_reg;
reg [63:0] s2_gap_reg, s2_now_reg;
reg [31:0] s2_min_gap_reg;
always @(posedge clk) begin
    s2_tau_reg <= tau_sum[55:0];
    // TAT wraps at 2^64 as the golden model's does.
    s2_tat_reg <= sum3(s1_base_reg, cost_xor, cost_carry);
    s2_now_gt_gap_reg <= s1_now_gt_gap_reg;
    s2_gap_reg <= s1_gap_reg;
    s2_now_reg <= s1_now_reg;
    s2_min_gap_reg <= s1_min_gap_reg;
end

// Stage 3: TAT - tau, and stage 4's comparisons with it, each a sign of
// one carry chain beside it (carry-save, 66 bits): now > TAT - tau is
// now + tau - TAT - 1 >= 0, and TAT - tau > gap_ready is
// TAT - tau - gap_ready - 1 >= 0 (~x = -x - 1).
wire [64:0] tat_less_tau = {1'b0, s2_tat_reg} - {9'd0, s2_tau_reg};
wire        tlt_clamped = tat_less_tau[64];
wire [65:0] tat66 = {2'd0, s2_tat_reg};
wire [65:0] tau66 = {10'd0, s2_tau_reg};
wire [65:0] now66 = {2'd0, s2_now_reg};
wire [65:0] gap66 = {2'd0, s2_gap_reg};
// Only the signs are read.
/* verilator lint_off UNUSEDSIGNAL */
wire [65:0] now_tau_tat = csa3_sum(now66, tau66, ~tat66, 1'b0);
wire [65:0] tat_tau_gap = csa3_sum(tat66, ~tau66, ~gap66, 1'b1);
/* verilator lint_on UNUSEDSIGNAL */
reg [63:0] s3_tlt_reg, s3_tat_reg;
reg        s3_tat_gt_now_reg, s3_tat_gt_gap_reg, s3_now_gt_gap_reg;
reg        s3_now_gt_tlt_reg, s3_tlt_gt_gap_reg;
reg [63:0] s3_gap_reg, s3_now_reg;
reg [31:0] s3_min_gap_reg;
always @(posedge clk) begin
    s3_tlt_reg <= tlt_clamped ? 64'd0 : tat_less_tau[63:0];
    // TAT - tau clamped to 0: now > 0, and 0 > gap_ready is false.
    s3_now_gt_tlt_reg <= tlt_clamped ? s2_now_reg != 64'd0 : !now_tau_tat[65];
    s3_tlt_gt_gap_reg <= !tlt_clamped && !tat_tau_gap[65];
    s3_tat_reg <= s2_tat_reg;
    s3_tat_gt_now_reg <= s2_tat_reg > s2_now_reg;
    s3_tat_gt_gap_reg <= s2_tat_reg > s2_gap_reg;
    s3_now_gt_gap_reg <= s2_now_gt_gap_reg;
    s3_gap_reg <= s2_gap_reg;
    s3_now_reg <= s2_now_reg;
    s3_min_gap_reg <= s2_min_gap_reg;
end

// Stage 4: max(now, TAT - tau, gap_ready) and max(TAT, now, gap_ready),
// selected by stage 3's comparisons.
wire [63:0] first = s3_now_gt_tlt_reg ? s3_now_reg : s3_tlt_reg;
wire        first_gt_gap = s3_now_gt_tlt_reg ? s3_now_gt_gap_reg : s3_tlt_gt_gap_reg;
wire [63:0] tat_now = s3_tat_gt_now_reg ? s3_tat_reg : s3_now_reg;
wire        tat_now_gt_gap = s3_tat_gt_now_reg ? s3_tat_gt_gap_reg : s3_now_gt_gap_reg;
reg [63:0] s4_eligible_reg;
reg [63:0] s4_base_reg;
reg [31:0] s4_min_gap_reg;
always @(posedge clk) begin
    s4_eligible_reg <= first_gt_gap ? first : s3_gap_reg;
    s4_base_reg <= tat_now_gt_gap ? tat_now : s3_gap_reg;
    s4_min_gap_reg <= s3_min_gap_reg;
end

// Stage 5.
reg [63:0] s5_gap_after_reg;
always @(posedge clk) begin
    s5_gap_after_reg <= s4_eligible_reg + {12'd0, s4_min_gap_reg, {FRAC_BITS{1'b0}}};
end

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
// Stage 3's registers hold values of one cycle's inputs from the first edge on.
reg stage3_loaded_reg = 1'b0;
always @(posedge clk) begin
    stage3_loaded_reg <= 1'b1;
    assert (!stage3_loaded_reg || s3_now_gt_tlt_reg == (s3_now_reg > s3_tlt_reg) && s3_tlt_gt_gap_reg == (s3_tlt_reg > s3_gap_reg))
    else metaroce_assertion_failed("pacer_gcra: stage 3's carry-save comparisons disagree with the plain ones");
end
`endif

assign eligible = s4_eligible_reg;
assign base_after = s4_base_reg;
assign gap_ready_after = s5_gap_after_reg;

endmodule

`resetall

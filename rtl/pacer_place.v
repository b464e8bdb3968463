// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Where a packet goes in the pacer's timing wheel (SPEC.md §7.4), in three
 * stages: the lowest level whose horizon holds its eligible time's slot,
 * else level 2's last slot within its horizon (parked); and that slot's
 * start as a level-0 slot number, as the wheel scan (pacer_scan.v) would
 * find it from the pointer. Stage 1 compares, 2 picks the level (and the
 * start's two terms), 3 adds.
 * Inputs at cycle c: `addr` at c+2, `start` at c+3 (as long as the
 * inputs stay). `limit` is registered by the pacer from the pointer; the
 * pointer must stay until c+2. Beside `start`, stage 3 compares it with
 * `other` (the pacer's next event, read at c+2) without waiting for the
 * sum: the pacer's insert then decides from two registers, not a 64-bit
 * comparison behind the start's register.
 *
 * | port     | width | meaning                                          |
 * |----------|-------|--------------------------------------------------|
 * | eligible | 64    | the packet's eligible time (ns, Q44.20)          |
 * | pointer  | 64    | the level-0 slot being served                    |
 * | limit    | 3*64  | per level, its last slot within the horizon      |
 * |          |       | (SPEC.md §7.4): with p = pointer >> level *      |
 * |          |       | log2(SLOT_COUNT), p | SLOT_COUNT-1 at levels 0    |
 * |          |       | and 1 (the end of the pointer's slot above),     |
 * |          |       | (p + 1) | SLOT_COUNT/2-1 at level 2                |
 * | busy     | 3*SLOT_COUNT | the wheel's busy bits (steady from c to c+1) |
 * | addr     | 2+log2(SLOT_COUNT) | the slot, {level, index}            |
 * | addr_busy| 1     | the slot is busy (with `addr`): read in two steps, |
 * |          |       | a group of 16 bits per candidate slot, then the bit |
 * | start    | 64    | its start, level-0 slots                         |
 * | other    | 64    | a start to compare with (level-0 slots, at c+2)  |
 * | before_other, at_other | 1 | start < other, start == other (c+3)   |
 */
module pacer_place #(
    parameter SLOT_COUNT = 256,
    parameter SLOT_SHIFT = 6,
    parameter SLOT_INDEX_WIDTH = $clog2(SLOT_COUNT)
) (
    input  wire                        clk,
    input  wire [63:0]                 eligible,
    input  wire [63:0]                 pointer,
    input  wire [3*64-1:0]             limit,
    input  wire [3*SLOT_COUNT-1:0]     busy,
    output wire [SLOT_INDEX_WIDTH+1:0] addr,
    output wire                        addr_busy,
    output wire [63:0]                 start,
    input  wire [63:0]                 other,
    output wire                        before_other,
    output wire                        at_other
);

localparam SB = SLOT_INDEX_WIDTH;
localparam FRAC_BITS = 20;
// The busy bits are read a group at a time (fewer slots: one group).
localparam GROUP = SLOT_COUNT >= 16 ? 16 : SLOT_COUNT;
localparam GB = $clog2(GROUP);

`include "carry_save.vh"

wire [63:0] target0 = eligible >> (FRAC_BITS + SLOT_SHIFT);
wire [63:0] target1 = target0 >> SB;
wire [63:0] target2 = target0 >> (2 * SB);
wire [63:0] limit0 = limit[0 +: 64];
wire [63:0] limit1 = limit[64 +: 64];
wire [63:0] limit2 = limit[128 +: 64];

// Stage 1: the three comparisons, side by side; the busy bits' groups of
// the candidate slots (each level's, and level 2's last).
wire [SLOT_COUNT-1:0] busy0 = busy[0 +: SLOT_COUNT];
wire [SLOT_COUNT-1:0] busy1 = busy[SLOT_COUNT +: SLOT_COUNT];
wire [SLOT_COUNT-1:0] busy2 = busy[2*SLOT_COUNT +: SLOT_COUNT];
wire [SB-1:0] group0 = target0[SB-1:0] >> GB;
wire [SB-1:0] group1 = target1[SB-1:0] >> GB;
wire [SB-1:0] group2 = target2[SB-1:0] >> GB;
wire [SB-1:0] group_limit2 = limit2[SB-1:0] >> GB;
reg [GROUP-1:0] s1_busy0_reg, s1_busy1_reg, s1_busy2_reg, s1_busy_limit2_reg;
always @(posedge clk) begin
    s1_busy0_reg <= busy0[group0*GROUP +: GROUP];
    s1_busy1_reg <= busy1[group1*GROUP +: GROUP];
    s1_busy2_reg <= busy2[group2*GROUP +: GROUP];
    s1_busy_limit2_reg <= busy2[group_limit2*GROUP +: GROUP];
end
reg          s1_in0_reg, s1_in1_reg, s1_in2_reg;
reg [SB-1:0] s1_target0_reg, s1_target1_reg, s1_target2_reg;
reg [SB-1:0] s1_limit2_reg;
// The pointer's slot of each level, modulo SLOT_COUNT.
reg [SB-1:0] s1_ptr0_reg, s1_ptr1_reg, s1_ptr2_reg;
always @(posedge clk) begin
    s1_in0_reg <= target0 <= limit0;
    s1_in1_reg <= target1 <= limit1;
    s1_in2_reg <= target2 <= limit2;
    s1_target0_reg <= target0[SB-1:0];
    s1_target1_reg <= target1[SB-1:0];
    s1_target2_reg <= target2[SB-1:0];
    s1_limit2_reg <= limit2[SB-1:0];
    s1_ptr0_reg <= pointer[SB-1:0];
    s1_ptr1_reg <= pointer[SB +: SB];
    s1_ptr2_reg <= pointer[2*SB +: SB];
end

// Stage 2: the level, and the slot's offset from the pointer's slot of
// that level (modulo SLOT_COUNT: no limit is more than SLOT_COUNT-1 slots
// past the pointer's).
wire [SB-1:0] index2 = s1_in2_reg ? s1_target2_reg : s1_limit2_reg;
wire [SB-1:0] offset0 = s1_target0_reg - s1_ptr0_reg;
wire [SB-1:0] offset1 = s1_target1_reg - s1_ptr1_reg;
wire [SB-1:0] offset2 = index2 - s1_ptr2_reg;
wire [GB-1:0] bit0 = s1_target0_reg[GB-1:0];
wire [GB-1:0] bit1 = s1_target1_reg[GB-1:0];
wire [GB-1:0] bit2 = s1_target2_reg[GB-1:0];
wire [GB-1:0] bit_limit2 = s1_limit2_reg[GB-1:0];
wire          busy_level2 = s1_in2_reg ? s1_busy2_reg[bit2] : s1_busy_limit2_reg[bit_limit2];
// The slot's start as two terms, start = (base << k) + (offset << k) mod
// 2^64 with k the level's shift (log2(SLOT_COUNT) bits a level): the
// pointer with its low k bits cleared, and the offset shifted, both
// registered here so that stage 3 has no multiplexer before its sums.
wire [63:0] offset0_wide = {{(64-SB){1'b0}}, offset0};
wire [63:0] offset1_wide = {{(64-SB){1'b0}}, offset1};
wire [63:0] offset2_wide = {{(64-SB){1'b0}}, offset2};
reg [1:0]    s2_level_reg;
reg [SB-1:0] s2_index_reg;
reg          s2_busy_reg;
reg [63:0]   s2_base_term_reg, s2_offset_term_reg;
always @(posedge clk) begin
    s2_busy_reg <= s1_in0_reg ? s1_busy0_reg[bit0] : (s1_in1_reg ? s1_busy1_reg[bit1] : busy_level2);
    s2_level_reg <= s1_in0_reg ? 2'd0 : (s1_in1_reg ? 2'd1 : 2'd2);
    s2_index_reg <= s1_in0_reg ? s1_target0_reg : (s1_in1_reg ? s1_target1_reg : index2);
    s2_base_term_reg <= s1_in0_reg ? pointer
                      : (s1_in1_reg ? (pointer >> SB) << SB : (pointer >> (2 * SB)) << (2 * SB));
    s2_offset_term_reg <= s1_in0_reg ? offset0_wide : (s1_in1_reg ? offset1_wide << SB : offset2_wide << (2 * SB));
end

// Stage 3: the start, the terms' sum; start < other and start == other
// from the terms side by side, with no carry chain before a comparison's:
// - less: the sign of base' + offset' - other (carry-save, 66 bits), or,
//   when base' + offset' wraps past 2^64 (its carry out, the start's own
//   chain), whether that difference is below 2^64;
// - equal: each bit's carry in is then other ^ base' ^ offset', which must
//   be the carry out of the bit below (and 0 into bit 0).
wire [64:0] term_sum = {1'b0, s2_base_term_reg} + {1'b0, s2_offset_term_reg};
wire [65:0] base66 = {2'd0, s2_base_term_reg};
wire [65:0] offset66 = {2'd0, s2_offset_term_reg};
wire [65:0] other66 = {2'd0, other};
// Only the difference's bits 64 and 65 are read.
/* verilator lint_off UNUSEDSIGNAL */
wire [65:0] less_other = csa3_sum(base66, offset66, ~other66, 1'b1);
/* verilator lint_on UNUSEDSIGNAL */
wire [63:0] carry_in_needed = other ^ s2_base_term_reg ^ s2_offset_term_reg;
wire [62:0] carry_out_given = (s2_base_term_reg[62:0] & s2_offset_term_reg[62:0])
                            | (s2_base_term_reg[62:0] & carry_in_needed[62:0])
                            | (s2_offset_term_reg[62:0] & carry_in_needed[62:0]);
reg [63:0] s3_start_reg;
reg        s3_before_reg, s3_at_reg;
always @(posedge clk) begin
    s3_start_reg <= term_sum[63:0];
    s3_before_reg <= term_sum[64] ? !less_other[64] : less_other[65];
    s3_at_reg <= !carry_in_needed[0] && carry_in_needed[63:1] == carry_out_given[62:0];
end

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
// Stage 3's registers hold values of one cycle's inputs from the first edge on.
reg        stage3_loaded_reg = 1'b0;
reg [63:0] s3_other_reg;
always @(posedge clk) begin
    stage3_loaded_reg <= 1'b1;
    s3_other_reg <= other;
    assert (!stage3_loaded_reg || s3_before_reg == (s3_start_reg < s3_other_reg) && s3_at_reg == (s3_start_reg == s3_other_reg))
    else metaroce_assertion_failed("pacer_place: stage 3's comparisons from the terms disagree with the plain ones");
end
`endif

assign addr = {s2_level_reg, s2_index_reg};
assign addr_busy = s2_busy_reg;
assign start = s3_start_reg;
assign before_other = s3_before_reg;
assign at_other = s3_at_reg;

endmodule

`resetall

// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Where a packet goes in the pacer's timing wheel (SPEC.md §7.4), in three
 * stages: the lowest level whose horizon holds its eligible time's slot,
 * else level 2's last slot within its horizon (parked); and that slot's
 * start as a level-0 slot number, as the wheel scan (pacer_scan.v) would
 * find it from the pointer. Stage 1 compares, 2 picks the level, 3 adds.
 * Inputs at cycle c: `addr` at c+2, `start` at c+3 (as long as the
 * inputs stay). `limit` is registered by the pacer from the pointer; the
 * pointer must stay until c+2.
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
    output wire [63:0]                 start
);

localparam SB = SLOT_INDEX_WIDTH;
localparam FRAC_BITS = 20;
// The busy bits are read a group at a time (fewer slots: one group).
localparam GROUP = SLOT_COUNT >= 16 ? 16 : SLOT_COUNT;
localparam GB = $clog2(GROUP);

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
reg [1:0]    s2_level_reg;
reg [SB-1:0] s2_index_reg;
reg [SB-1:0] s2_offset_reg;
reg          s2_busy_reg;
always @(posedge clk) begin
    s2_busy_reg <= s1_in0_reg ? s1_busy0_reg[bit0] : (s1_in1_reg ? s1_busy1_reg[bit1] : busy_level2);
    s2_level_reg <= s1_in0_reg ? 2'd0 : (s1_in1_reg ? 2'd1 : 2'd2);
    s2_index_reg <= s1_in0_reg ? s1_target0_reg : (s1_in1_reg ? s1_target1_reg : index2);
    s2_offset_reg <= s1_in0_reg ? offset0 : (s1_in1_reg ? offset1 : offset2);
end

// Stage 3: start = (pointer's slot of the level + offset) << level bits.
wire [63:0] base = s2_level_reg == 2'd0 ? pointer
                 : (s2_level_reg == 2'd1 ? pointer >> SB : pointer >> (2 * SB));
wire [63:0] slot = base + {{(64-SB){1'b0}}, s2_offset_reg};
reg [63:0] s3_start_reg;
always @(posedge clk) begin
    s3_start_reg <= s2_level_reg == 2'd0 ? slot : (s2_level_reg == 2'd1 ? slot << SB : slot << (2 * SB));
end

assign addr = {s2_level_reg, s2_index_reg};
assign addr_busy = s2_busy_reg;
assign start = s3_start_reg;

endmodule

`resetall

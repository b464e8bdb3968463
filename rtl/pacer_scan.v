// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The pacer's wheel scan (SPEC.md §7.4, §7.6): the next event of the
 * timing wheel, pipelined over LATENCY = 6 cycles. Over the three levels,
 * the first busy slot at or after the pointer's slot in that level (a
 * rotated find-first-set), its start as a level-0 slot number; the
 * earliest start, the higher level on a tie. The outputs describe the
 * inputs of 6 cycles before; the pacer uses them once its busy bits have
 * not changed for 6 cycles (a move of the pointer changes no start: it
 * never passes a busy slot).
 *
 * Stages: 1. each group of 16 slots: any and first busy; the pointer's
 * group masked from the pointer's slot on. 2. first busy in that group,
 * first busy group after it, first busy group. 3. the level's first slot.
 * 4. its start relative to the pointer. 5. the earliest of the levels.
 * 6. its start, absolute.
 *
 * | port    | width  | meaning                                         |
 * |---------|--------|-------------------------------------------------|
 * | busy    | 3*SLOT_COUNT | busy bits, {level 2, level 1, level 0}     |
 * | pointer | 64     | the level-0 slot being served                   |
 * | any     | 1      | some slot is busy                               |
 * | start   | 64     | the next event's start (level-0 slot number)    |
 * | addr    | 2+log2(SLOT_COUNT) | its slot, {level, index}            |
 */
module pacer_scan #(
    parameter SLOT_COUNT = 256,
    parameter SLOT_INDEX_WIDTH = $clog2(SLOT_COUNT)
) (
    input  wire                        clk,
    input  wire [3*SLOT_COUNT-1:0]     busy,
    input  wire [63:0]                 pointer,
    output wire                        any,
    output wire [63:0]                 start,
    output wire [SLOT_INDEX_WIDTH+1:0] addr
);

localparam SB = SLOT_INDEX_WIDTH;
// Groups of 16 slots (fewer slots: one group, padded to two).
localparam GROUP = SLOT_COUNT >= 16 ? 16 : SLOT_COUNT;
localparam GB = $clog2(GROUP);
localparam GROUPS = SLOT_COUNT / GROUP < 2 ? 2 : SLOT_COUNT / GROUP;
localparam NGB = $clog2(GROUPS);
localparam PB = NGB + GB;
// Starts relative to the pointer: level 2's reach, signed.
localparam RW = 3 * SB + 2;

generate
    if (SLOT_COUNT < 2 || (SLOT_COUNT & (SLOT_COUNT - 1)) != 0 || SB != $clog2(SLOT_COUNT)) begin : g_bad_slot_count
        pacer_scan_SLOT_COUNT_must_be_a_power_of_2_at_least_2 bad_slot_count();
    end
endgenerate

reg [63:0] p1_reg, p2_reg, p3_reg, p4_reg, p5_reg;
reg [63:0] start_reg;
reg        any_reg;
reg [SB+1:0] addr_reg;

always @(posedge clk) begin
    p1_reg <= pointer;
    p2_reg <= p1_reg;
    p3_reg <= p2_reg;
    p4_reg <= p3_reg;
    p5_reg <= p4_reg;
end

// Stage 4's results, per level.
wire [2:0]      lvl_any;
wire [3*RW-1:0] lvl_rel;
wire [3*SB-1:0] lvl_index;

genvar l, g;
generate
    for (l = 0; l < 3; l = l + 1) begin : g_lvl
        wire [GROUPS*GROUP-1:0] bits = {{(GROUPS*GROUP-SLOT_COUNT){1'b0}}, busy[l*SLOT_COUNT +: SLOT_COUNT]};
        // The pointer's slot in this level.
        wire [PB-1:0] r = {{(PB-SB){1'b0}}, pointer[l*SB +: SB]};

        // Stage 1.
        wire [GROUPS-1:0]    group_any;
        wire [GROUPS*GB-1:0] group_first;
        for (g = 0; g < GROUPS; g = g + 1) begin : g_group
            pacer_ffs #(.WIDTH(GROUP)) ffs_inst (
                .bits(bits[g*GROUP +: GROUP]),
                .any(group_any[g]),
                .index(group_first[g*GB +: GB])
            );
        end
        wire [GROUP-1:0] from_r = {GROUP{1'b1}} << r[GB-1:0];
        reg [GROUPS-1:0]    s1_any_reg;
        reg [GROUPS*GB-1:0] s1_first_reg;
        reg [GROUP-1:0]     s1_part_reg;
        reg [PB-1:0]        s1_r_reg;
        always @(posedge clk) begin
            s1_any_reg <= group_any;
            s1_first_reg <= group_first;
            s1_part_reg <= bits[r[PB-1:GB]*GROUP +: GROUP] & from_r;
            s1_r_reg <= r;
        end

        // Stage 2.
        wire [GROUPS-1:0] after_mask = ({GROUPS{1'b1}} << s1_r_reg[PB-1:GB]) << 1;
        wire [GROUPS-1:0] after_r = s1_any_reg & after_mask;
        wire part_any, after_any, first_any;
        wire [GB-1:0] part_first;
        wire [NGB-1:0] after_group, first_group;
        pacer_ffs #(.WIDTH(GROUP)) part_inst (.bits(s1_part_reg), .any(part_any), .index(part_first));
        pacer_ffs #(.WIDTH(GROUPS)) after_inst (.bits(after_r), .any(after_any), .index(after_group));
        pacer_ffs #(.WIDTH(GROUPS)) first_inst (.bits(s1_any_reg), .any(first_any), .index(first_group));
        reg                 s2_part_any_reg, s2_after_any_reg, s2_any_reg;
        reg [GB-1:0]        s2_part_first_reg;
        reg [NGB-1:0]       s2_after_group_reg, s2_first_group_reg;
        reg [GROUPS*GB-1:0] s2_first_reg;
        reg [PB-1:0]        s2_r_reg;
        always @(posedge clk) begin
            s2_part_any_reg <= part_any;
            s2_after_any_reg <= after_any;
            s2_any_reg <= first_any;
            s2_part_first_reg <= part_first;
            s2_after_group_reg <= after_group;
            s2_first_group_reg <= first_group;
            s2_first_reg <= s1_first_reg;
            s2_r_reg <= s1_r_reg;
        end

        // Stage 3: in the pointer's group from the pointer on, else the
        // next busy group, else (wrapped) the first busy group.
        wire [NGB-1:0] group = s2_part_any_reg ? s2_r_reg[PB-1:GB]
                             : (s2_after_any_reg ? s2_after_group_reg : s2_first_group_reg);
        wire [GB-1:0] in_group = s2_part_any_reg ? s2_part_first_reg : s2_first_reg[group*GB +: GB];
        reg          s3_any_reg;
        reg [PB-1:0] s3_index_reg;
        reg [PB-1:0] s3_r_reg;
        always @(posedge clk) begin
            s3_any_reg <= s2_any_reg;
            s3_index_reg <= {group, in_group};
            s3_r_reg <= s2_r_reg;
        end

        // Stage 4: the slot's start relative to the pointer, in level-0
        // slots: its offset from the pointer's slot of this level, less
        // how far the pointer is into that slot.
        /* verilator lint_off UNUSEDSIGNAL */
        wire [PB-1:0] offset = s3_index_reg - s3_r_reg;
        /* verilator lint_on UNUSEDSIGNAL */
        wire [RW-1:0] offset_wide = {{(RW-SB){1'b0}}, offset[SB-1:0]};
        localparam [RW-1:0] INTO_MASK = (1 << (l * SB)) - 1;
        wire [RW-1:0] into = {{(RW-2*SB){1'b0}}, p3_reg[0 +: 2*SB]} & INTO_MASK;
        reg          s4_any_reg;
        reg [RW-1:0] s4_rel_reg;
        reg [SB-1:0] s4_index_reg;
        always @(posedge clk) begin
            s4_any_reg <= s3_any_reg;
            s4_rel_reg <= (offset_wide << (l * SB)) - into;
            s4_index_reg <= s3_index_reg[SB-1:0];
        end
        assign lvl_any[l] = s4_any_reg;
        assign lvl_rel[l*RW +: RW] = s4_rel_reg;
        assign lvl_index[l*SB +: SB] = s4_index_reg;
    end
endgenerate

// Stage 5: the earliest start, the higher level on a tie.
wire [RW-1:0] rel0 = lvl_rel[0 +: RW];
wire [RW-1:0] rel1 = lvl_rel[RW +: RW];
wire [RW-1:0] rel2 = lvl_rel[2*RW +: RW];
wire pick2 = lvl_any[2] && (!lvl_any[1] || $signed(rel2) <= $signed(rel1))
                        && (!lvl_any[0] || $signed(rel2) <= $signed(rel0));
wire pick1 = !pick2 && lvl_any[1] && (!lvl_any[0] || $signed(rel1) <= $signed(rel0));
reg          s5_any_reg;
reg [RW-1:0] s5_rel_reg;
reg [SB+1:0] s5_addr_reg;
always @(posedge clk) begin
    s5_any_reg <= |lvl_any;
    s5_rel_reg <= pick2 ? rel2 : (pick1 ? rel1 : rel0);
    s5_addr_reg <= pick2 ? {2'd2, lvl_index[2*SB +: SB]}
                 : (pick1 ? {2'd1, lvl_index[SB +: SB]} : {2'd0, lvl_index[0 +: SB]});
end

// Stage 6.
always @(posedge clk) begin
    any_reg <= s5_any_reg;
    start_reg <= p5_reg + {{(64-RW){s5_rel_reg[RW-1]}}, s5_rel_reg};
    addr_reg <= s5_addr_reg;
end

assign any = any_reg;
assign start = start_reg;
assign addr = addr_reg;

endmodule

`resetall

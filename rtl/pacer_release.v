// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The pacer's releases (SPEC.md §7.4, §7.5): a packet served leaves at
 * leave = max(eligible, link_free), tick ceil(leave); then link_free =
 * leave + len * line_byte_time (the aggregate line-rate cap). Pipelined:
 * stage 0 registers the descriptor (the RAM's output), 1 the product in
 * 18-bit pieces, 2 the product summed and `leave`, 3 link_free and the
 * tick, into an output FIFO of OUT_DEPTH behind the output register.
 * Packets come at most every other cycle (stage 2 of one reads the
 * link_free stage 3 of the one before wrote). Drops go straight into the
 * FIFO; the pacer gives one only while nothing is in the stages, so the
 * output keeps the order of the decisions.
 *
 * Room: a packet or drop is given only with `room` high, and `reserve`
 * high in that cycle (the room is counted from then until the output is
 * taken, so the stages never stall and m_rel_ready reaches no further).
 * A descriptor that is not live (its packet re-timed into another, SPEC.md
 * §7.3) goes through the stages and leaves nothing: no release, link_free
 * kept, its room given back.
 *
 * | port            | width | meaning                                    |
 * |-----------------|-------|--------------------------------------------|
 * | line_byte_time  | 40    | register line_byte_time (Q20.20)           |
 * | reserve         | 1     | a packet or drop is on its way             |
 * | reserve_drop    | 1     | ... a drop                                 |
 * | room            | 1     | one more may be reserved                   |
 * | in_valid, in_*  |       | the packet's descriptor, two cycles after  |
 * |                 |       | its reservation (the descriptor RAM's      |
 * |                 |       | output)                                    |
 * | in_live         | 1     | ... it holds a packet (the live RAM's)     |
 * | drop_valid, drop_* |    | a drop, in the cycle of its reservation    |
 * | held_eligible   | 64    | stage 0's eligible: the descriptor RAM's   |
 * |                 |       | output of the cycle before (for cascades)  |
 * | stages_empty    | 1     | no packet in the stages                    |
 * | idle            | 1     | nothing in the stages, FIFO or output      |
 * | m_rel_*         |       | roce_pacer.v's release output              |
 */
module pacer_release #(
    parameter QP_INDEX_WIDTH = 12,
    parameter OUT_DEPTH = 8
) (
    input  wire                      clk,
    input  wire                      rst,
    input  wire [39:0]               line_byte_time,

    input  wire                      reserve,
    input  wire                      reserve_drop,
    output wire                      room,

    input  wire                      in_valid,
    input  wire [QP_INDEX_WIDTH-1:0] in_qp,
    input  wire [16:0]               in_len,
    input  wire [63:0]               in_eligible,
    input  wire                      in_live,

    input  wire                      drop_valid,
    input  wire [63:0]               drop_time,
    input  wire [QP_INDEX_WIDTH-1:0] drop_qp,
    input  wire [16:0]               drop_len,

    output wire [63:0]               held_eligible,
    output wire                      stages_empty,
    output wire                      idle,

    output wire                      m_rel_valid,
    input  wire                      m_rel_ready,
    output wire [63:0]               m_rel_time,
    output wire [23:0]               m_rel_qp,
    output wire [16:0]               m_rel_len,
    output wire                      m_rel_drop
);

localparam FRAC_BITS = 20;
localparam OUT_INDEX_WIDTH = $clog2(OUT_DEPTH);
localparam ENTRY_WIDTH = 64 + QP_INDEX_WIDTH + 17 + 1;
// The FIFO and the output register.
localparam [OUT_INDEX_WIDTH+1:0] CAPACITY = OUT_DEPTH + 1;

generate
    if (OUT_DEPTH < 2 || (OUT_DEPTH & (OUT_DEPTH - 1)) != 0) begin : g_bad_out_depth
        pacer_release_OUT_DEPTH_must_be_a_power_of_2_at_least_2 bad_out_depth();
    end
endgenerate

reg [63:0] link_free_reg = 64'd0;

// Stage 0.
reg                      s0_valid_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0] s0_qp_reg;
reg [16:0]               s0_len_reg;
reg [63:0]               s0_eligible_reg;
reg                      s0_live_reg;
// Stage 1: len * line_byte_time in pieces of 18, 18 and 4 bits.
reg                      s1_valid_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0] s1_qp_reg;
reg [16:0]               s1_len_reg;
reg [63:0]               s1_eligible_reg;
reg                      s1_live_reg;
reg [34:0]               s1_wire0_reg, s1_wire1_reg;
reg [20:0]               s1_wire2_reg;
// Stage 2.
reg                      s2_valid_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0] s2_qp_reg;
reg [16:0]               s2_len_reg;
reg [63:0]               s2_leave_reg;
reg                      s2_live_reg;
reg [56:0]               s2_wire_reg;

// The pieces summed: carry-save, then one adder (the sum is below 2^57).
wire [57:0] piece0 = {23'd0, s1_wire0_reg};
wire [57:0] piece1 = {5'd0, s1_wire1_reg, 18'd0};
wire [57:0] piece2 = {1'd0, s1_wire2_reg, 36'd0};
/* verilator lint_off UNUSEDSIGNAL */
wire [57:0] wire_sum = (piece0 ^ piece1 ^ piece2)
                     + {(piece0[56:0] & piece1[56:0]) | (piece0[56:0] & piece2[56:0]) | (piece1[56:0] & piece2[56:0]), 1'b0};
/* verilator lint_on UNUSEDSIGNAL */
wire [63:0] leave_after = s2_leave_reg + {7'd0, s2_wire_reg};
wire [63:0] tick = (s2_leave_reg >> FRAC_BITS) + {63'd0, s2_leave_reg[FRAC_BITS-1:0] != 0};

always @(posedge clk) begin
    s0_valid_reg <= in_valid;
    s0_qp_reg <= in_qp;
    s0_len_reg <= in_len;
    s0_eligible_reg <= in_eligible;
    s0_live_reg <= in_live;

    s1_valid_reg <= s0_valid_reg;
    s1_qp_reg <= s0_qp_reg;
    s1_len_reg <= s0_len_reg;
    s1_eligible_reg <= s0_eligible_reg;
    s1_live_reg <= s0_live_reg;
    s1_wire0_reg <= s0_len_reg * line_byte_time[17:0];
    s1_wire1_reg <= s0_len_reg * line_byte_time[35:18];
    s1_wire2_reg <= s0_len_reg * line_byte_time[39:36];

    s2_valid_reg <= s1_valid_reg;
    s2_qp_reg <= s1_qp_reg;
    s2_len_reg <= s1_len_reg;
    s2_leave_reg <= s1_eligible_reg > link_free_reg ? s1_eligible_reg : link_free_reg;
    s2_live_reg <= s1_live_reg;
    s2_wire_reg <= wire_sum[56:0];

    // Stage 3.
    if (s2_valid_reg && s2_live_reg) begin
        link_free_reg <= leave_after;
    end

    if (rst) begin
        s0_valid_reg <= 1'b0;
        s1_valid_reg <= 1'b0;
        s2_valid_reg <= 1'b0;
        link_free_reg <= 64'd0;
    end
end

// The output FIFO and register.
reg [ENTRY_WIDTH-1:0]   fifo_mem [0:OUT_DEPTH-1];
reg [OUT_INDEX_WIDTH:0] fifo_wr_reg = 0, fifo_rd_reg = 0;
reg [OUT_INDEX_WIDTH+1:0] room_reg = CAPACITY;
reg [2:0]               in_stages_reg = 3'd0;
reg                     out_valid_reg = 1'b0;
reg [ENTRY_WIDTH-1:0]   out_reg;

wire fifo_empty = fifo_wr_reg == fifo_rd_reg;
wire released = s2_valid_reg && s2_live_reg;
wire stale_done = s2_valid_reg && !s2_live_reg;
wire push = released || drop_valid;
wire [ENTRY_WIDTH-1:0] push_entry = released ? {tick, s2_qp_reg, s2_len_reg, 1'b0}
                                                 : {drop_time, drop_qp, drop_len, 1'b1};
wire out_taken = out_valid_reg && m_rel_ready;

always @(posedge clk) begin
    if (push) begin
        fifo_mem[fifo_wr_reg[OUT_INDEX_WIDTH-1:0]] <= push_entry;
        fifo_wr_reg <= fifo_wr_reg + 1'b1;
    end
    if (out_taken) begin
        out_valid_reg <= 1'b0;
    end
    if (!fifo_empty && (!out_valid_reg || m_rel_ready)) begin
        out_reg <= fifo_mem[fifo_rd_reg[OUT_INDEX_WIDTH-1:0]];
        out_valid_reg <= 1'b1;
        fifo_rd_reg <= fifo_rd_reg + 1'b1;
    end
    room_reg <= room_reg - {{(OUT_INDEX_WIDTH+1){1'b0}}, reserve} + {{(OUT_INDEX_WIDTH+1){1'b0}}, out_taken}
              + {{(OUT_INDEX_WIDTH+1){1'b0}}, stale_done};
    in_stages_reg <= in_stages_reg + {2'd0, reserve && !reserve_drop} - {2'd0, s2_valid_reg};
    if (rst) begin
        fifo_wr_reg <= 0;
        fifo_rd_reg <= 0;
        out_valid_reg <= 1'b0;
        room_reg <= CAPACITY;
        in_stages_reg <= 3'd0;
    end
end

assign room = room_reg != 0;
assign held_eligible = s0_eligible_reg;
assign stages_empty = in_stages_reg == 0;
assign idle = stages_empty && fifo_empty && !out_valid_reg;

wire [QP_INDEX_WIDTH-1:0] out_qp;
assign {m_rel_time, out_qp, m_rel_len, m_rel_drop} = out_reg;
assign m_rel_qp = {{(24-QP_INDEX_WIDTH){1'b0}}, out_qp};
assign m_rel_valid = out_valid_reg;

endmodule

`resetall

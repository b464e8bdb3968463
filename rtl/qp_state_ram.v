// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Per-QP state RAM: one word per QP, one registered read port and one write
 * port (simple dual port, as block RAM maps it). A read in the same cycle as
 * a write to the same address returns an undefined word (X in simulation
 * with the assertions on): users forward around it. (Promising the old
 * word costs a register and a multiplexer behind every block RAM: Yosys
 * emulates it, and the ECP5 DP16KD gives no such promise between its two
 * ports.)
 *
 * COLUMN_WIDTH 0 keeps the word in one memory. Otherwise the word is built
 * of memories COLUMN_WIDTH bits wide (the last one padded): the pacer's wide
 * words in 4-bit columns, each column of up to 4096 words one ECP5 DP16KD in
 * its 4K x 4 mode, so the read data leaves the block RAM with no multiplexer
 * behind it (a deeper, narrower mode needs one) and reaches its first
 * register in time.
 *
 * OUTPUT_REG 1 registers each column's read data once more, beside its
 * block RAM (as the DP16KD's own output register would): a word spread
 * over many block RAMs across the die reaches its user a cycle later, but
 * the RAM's slow clock-to-data (4.26 ns on ECP5) and the long route to the
 * user are in different cycles.
 *
 * | port     | width      | meaning                                   |
 * |----------|------------|-------------------------------------------|
 * | rd_en    | 1          | read `rd_addr`; the word is on `rd_data`   |
 * |          |            | from the next cycle (OUTPUT_REG 1: the one |
 * |          |            | after) until the next read's               |
 * | wr_en    | 1          | write `wr_data` to `wr_addr`               |
 */
module qp_state_ram #(
    parameter WIDTH = 64,
    parameter DEPTH = 1024,
    parameter ADDR_WIDTH = DEPTH > 1 ? $clog2(DEPTH) : 1,
    parameter COLUMN_WIDTH = 0,
    parameter OUTPUT_REG = 0
) (
    input  wire                  clk,
    input  wire                  rd_en,
    input  wire [ADDR_WIDTH-1:0] rd_addr,
    output wire [WIDTH-1:0]      rd_data,
    input  wire                  wr_en,
    input  wire [ADDR_WIDTH-1:0] wr_addr,
    input  wire [WIDTH-1:0]      wr_data
);

localparam COLUMN = COLUMN_WIDTH > 0 ? COLUMN_WIDTH : WIDTH;
localparam COLUMNS = (WIDTH + COLUMN - 1) / COLUMN;

wire [COLUMN*COLUMNS-1:0] wr_data_padded = {{(COLUMN*COLUMNS-WIDTH){1'b0}}, wr_data};
// The last column's padding bits are written 0 and never read.
/* verilator lint_off UNUSEDSIGNAL */
wire [COLUMN*COLUMNS-1:0] rd_data_padded;
/* verilator lint_on UNUSEDSIGNAL */
assign rd_data = rd_data_padded[WIDTH-1:0];

genvar c;
generate
    for (c = 0; c < COLUMNS; c = c + 1) begin : g_column
        // no_rw_check: Yosys maps the RAM as it is, with no logic that
        // makes a colliding read return the old word.
        (* no_rw_check *)
        reg [COLUMN-1:0] mem [0:DEPTH-1];
        reg [COLUMN-1:0] rd_data_reg;
        always @(posedge clk) begin
            if (rd_en) begin
`ifdef METAROCE_ASSERTIONS
                // Checked in simulation: X (Verilator --x-assign unique: a
                // seeded value), so that no user can lean on either word.
                rd_data_reg <= wr_en && rd_addr == wr_addr ? {COLUMN{1'bx}} : mem[rd_addr];
`else
                rd_data_reg <= mem[rd_addr];
`endif
            end
            if (wr_en) begin
                mem[wr_addr] <= wr_data_padded[COLUMN*c +: COLUMN];
            end
        end
        if (OUTPUT_REG != 0) begin : g_output_reg
            reg [COLUMN-1:0] rd_out_reg;
            always @(posedge clk) begin
                rd_out_reg <= rd_data_reg;
            end
            assign rd_data_padded[COLUMN*c +: COLUMN] = rd_out_reg;
        end else begin : g_no_output_reg
            assign rd_data_padded[COLUMN*c +: COLUMN] = rd_data_reg;
        end
    end
endgenerate

endmodule

`resetall

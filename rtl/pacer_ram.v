// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The pacer's wide RAMs (QP words, descriptors): as qp_state_ram.v (one
 * registered read port, one write port; a read in the cycle of a write to
 * the same word returns the old word), built of 4-bit columns. A column of
 * up to 4096 words is one ECP5 DP16KD in its 4K x 4 mode: the read data
 * leaves the block RAM with no multiplexer behind it (a deeper, narrower
 * mode needs one), so it reaches its first register in time.
 *
 * | port     | width      | meaning                                   |
 * |----------|------------|-------------------------------------------|
 * | rd_en    | 1          | read `rd_addr`; the word is on `rd_data`   |
 * |          |            | from the next cycle until the next read    |
 * | wr_en    | 1          | write `wr_data` to `wr_addr`               |
 */
module pacer_ram #(
    parameter WIDTH = 64,
    parameter DEPTH = 4096,
    parameter ADDR_WIDTH = DEPTH > 1 ? $clog2(DEPTH) : 1
) (
    input  wire                  clk,
    input  wire                  rd_en,
    input  wire [ADDR_WIDTH-1:0] rd_addr,
    output wire [WIDTH-1:0]      rd_data,
    input  wire                  wr_en,
    input  wire [ADDR_WIDTH-1:0] wr_addr,
    input  wire [WIDTH-1:0]      wr_data
);

localparam COLUMNS = (WIDTH + 3) / 4;

wire [4*COLUMNS-1:0] wr_data_padded = {{(4*COLUMNS-WIDTH){1'b0}}, wr_data};
// The last column's padding bits are written 0 and never read.
/* verilator lint_off UNUSEDSIGNAL */
wire [4*COLUMNS-1:0] rd_data_padded;
/* verilator lint_on UNUSEDSIGNAL */
assign rd_data = rd_data_padded[WIDTH-1:0];

genvar c;
generate
    for (c = 0; c < COLUMNS; c = c + 1) begin : g_column
        reg [3:0] mem [0:DEPTH-1];
        reg [3:0] rd_data_reg;
        always @(posedge clk) begin
            if (rd_en) begin
                rd_data_reg <= mem[rd_addr];
            end
            if (wr_en) begin
                mem[wr_addr] <= wr_data_padded[4*c +: 4];
            end
        end
        assign rd_data_padded[4*c +: 4] = rd_data_reg;
    end
endgenerate

endmodule

`resetall

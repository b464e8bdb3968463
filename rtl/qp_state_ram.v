// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Per-QP state RAM: one word per QP, one registered read port and one write
 * port (simple dual port, as block RAM maps it). A read in the same cycle as
 * a write to the same address returns the old word; users forward.
 *
 * | port     | width      | meaning                                   |
 * |----------|------------|-------------------------------------------|
 * | rd_en    | 1          | read `rd_addr`; the word is on `rd_data`   |
 * |          |            | from the next cycle until the next read    |
 * | wr_en    | 1          | write `wr_data` to `wr_addr`               |
 */
module qp_state_ram #(
    parameter WIDTH = 64,
    parameter DEPTH = 1024,
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

reg [WIDTH-1:0] mem [0:DEPTH-1];
reg [WIDTH-1:0] rd_data_reg;

assign rd_data = rd_data_reg;

always @(posedge clk) begin
    if (rd_en) begin
        rd_data_reg <= mem[rd_addr];
    end
    if (wr_en) begin
        mem[wr_addr] <= wr_data;
    end
end

endmodule

`resetall

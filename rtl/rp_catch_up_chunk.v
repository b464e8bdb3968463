// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * One timer's catch-up chunks in the reaction point (SPEC.md §6.4 step 1):
 * a chunk is 2^j of the timer's expiries, all due when the event's tick is
 * (2^j - 1) periods past the next one. j climbs while chunks are taken,
 * and once one is not due falls through the binary digits of the rest, so
 * n expiries take about 2 log2(n) chunks. The caller moves the next expiry
 * on by `span` for each chunk it takes.
 *
 * | port    | width | meaning                                                  |
 * |---------|-------|----------------------------------------------------------|
 * | load    | 1     | a new event's catch-up: j = 0, climbing                  |
 * | take    | 1     | the chunk is worked off: j moves on                      |
 * | restart | 1     | with take: the chunk ended a run, start again at j = 0   |
 * | halve   | 1     | the chunk is not due (j > 0): j - 1, falling             |
 * | period  | 32    | the timer's period                                       |
 * | left    | 64    | the event's tick - the next expiry (when not negative)   |
 * | j       | 7     | log2 of the chunk's size                                 |
 * | j_zero  | 1     | j = 0 (a register beside j: no 7-bit compare before the  |
 * |         |       | enables and selects that ask)                            |
 * | span    | 65    | 2^j periods (of a chunk that is due: below 2^65)         |
 * | in_time | 1     | left >= (2^j - 1) periods: the whole chunk is due        |
 * | climb   | 1     | j goes up this cycle (for the caller's own 2^j multiples)|
 * | fall    | 1     | j goes down this cycle                                   |
 */
module rp_catch_up_chunk (
    input  wire        clk,
    input  wire        load,
    input  wire        take,
    input  wire        restart,
    input  wire        halve,
    input  wire [31:0] period,
    input  wire [63:0] left,
    output wire [6:0]  j,
    output wire        j_zero,
    output wire [64:0] span,
    output wire        in_time,
    output wire        climb,
    output wire        fall
);

reg [6:0]  j_reg = 7'd0;
reg        j_zero_reg = 1'b1;
reg        down_reg = 1'b0;
// 2^j periods, and (2^j - 1) periods: both below 2^66 while chunks fit in
// 64-bit ticks.
reg [65:0] span_reg = 66'd0;
reg [65:0] wait_reg = 66'd0;

assign j = j_reg;
assign j_zero = j_zero_reg;
assign span = span_reg[64:0];
assign in_time = {2'd0, left} >= wait_reg;
assign climb = take && !restart && !down_reg;
assign fall = (take && !restart && down_reg && !j_zero_reg) || (!take && halve);

always @(posedge clk) begin
    if (load || (take && restart)) begin
        j_reg <= 7'd0;
        j_zero_reg <= 1'b1;
        down_reg <= 1'b0;
        span_reg <= {34'd0, period};
        wait_reg <= 66'd0;
    end else if (climb) begin
        j_reg <= j_reg + 7'd1;
        j_zero_reg <= 1'b0;
        span_reg <= span_reg << 1;
        wait_reg <= (wait_reg << 1) + {34'd0, period};
    end else if (fall) begin
        j_reg <= j_reg - 7'd1;
        j_zero_reg <= j_reg == 7'd1;
        down_reg <= 1'b1;
        span_reg <= span_reg >> 1;
        wait_reg <= (wait_reg - {34'd0, period}) >> 1;
    end else if (take) begin
        // The last digit taken: climb again from j = 0.
        down_reg <= 1'b0;
    end
end

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
always @(posedge clk) begin
    assert (j_zero_reg == (j_reg == 7'd0))
    else metaroce_assertion_failed("rp_catch_up_chunk: j_zero out of step with j");
end
`endif

endmodule

`resetall

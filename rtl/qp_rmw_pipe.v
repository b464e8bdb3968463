// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Per-QP read-modify-write with forwarding: the state RAM (qp_state_ram.v)
 * of a pipeline. Stage A reads the word of the event it takes (the
 * notification point reads every cycle, its R never waiting); the stage
 * a cycle later (R in both points) finds it on `entry`, and a later stage
 * writes it back. When a write of the same QP came in the cycle of the
 * read, the RAM's word is undefined (qp_state_ram.v): `entry` is then the
 * word written, so back-to-back events of one QP see each other's updates.
 * A user whose later stages hold a newer word of R's QP passes it as
 * `newer` (the notification point's B and W), and `entry` is that word
 * before the one written in the read's cycle; the RAM's word comes last in
 * the select, so that a block RAM's late data (an ECP5 DP16KD's, 4.26 ns
 * after the clock without its output register) meets one LUT before the
 * register it feeds, with the selects decided meanwhile.
 *
 * | port        | width | meaning                                          |
 * |-------------|-------|--------------------------------------------------|
 * | rd_en       | 1     | read `rd_addr` (when stage A takes an event, or  |
 * |             |       | every cycle where R never waits)                 |
 * | entry       | WIDTH | stage R: the current word of that QP, from the   |
 * |             |       | next cycle until the next read                   |
 * | newer_valid | 1     | stage R: `entry` is `newer` (a later stage's     |
 * |             |       | word of the same QP)                             |
 * | newer       | WIDTH | that word                                        |
 * | wr_en       | 1     | write `wr_data` to `wr_addr` (the write-back     |
 * |             |       | stage W, or a sweep or table load while no       |
 * |             |       | event is past the read)                          |
 */
module qp_rmw_pipe #(
    parameter WIDTH = 64,
    parameter DEPTH = 1024,
    parameter ADDR_WIDTH = DEPTH > 1 ? $clog2(DEPTH) : 1
) (
    input  wire                  clk,
    input  wire                  rd_en,
    input  wire [ADDR_WIDTH-1:0] rd_addr,
    output wire [WIDTH-1:0]      entry,
    input  wire                  newer_valid,
    input  wire [WIDTH-1:0]      newer,
    input  wire                  wr_en,
    input  wire [ADDR_WIDTH-1:0] wr_addr,
    input  wire [WIDTH-1:0]      wr_data
);

wire [WIDTH-1:0] rd_data;
reg              fwd_valid_reg;
reg [WIDTH-1:0]  fwd_data_reg;

qp_state_ram #(
    .WIDTH(WIDTH),
    .DEPTH(DEPTH),
    .ADDR_WIDTH(ADDR_WIDTH)
) ram_inst (
    .clk(clk),
    .rd_en(rd_en),
    .rd_addr(rd_addr),
    .rd_data(rd_data),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data)
);

always @(posedge clk) begin
    if (rd_en) begin
        fwd_valid_reg <= wr_en && wr_addr == rd_addr;
        fwd_data_reg <= wr_data;
    end
end

wire             from_ram = !newer_valid && !fwd_valid_reg;
wire [WIDTH-1:0] forwarded = newer_valid ? newer : fwd_data_reg;
assign entry = from_ram ? rd_data : forwarded;

endmodule

`resetall

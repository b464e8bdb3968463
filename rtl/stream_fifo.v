// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * First-in first-out buffer of a valid/ready channel, for a writer that
 * holds credits: it has no s_ready, and its writer pushes only what it has
 * counted room for (`count`, the entries held). DEPTH entries wait in a
 * small memory (distributed RAM); one more is the output register, which
 * every output comes from. An entry pushed into an empty buffer whose
 * output is free goes straight to the output register: one cycle of
 * latency, as a plain output register (dcqcn_rp.v's rate output).
 *
 * Why credits: a pipeline whose stages move together stalls them all on
 * its output's ready, and that one net (ready through the stalls to every
 * stage's enable) becomes the clock's limit. A writer that counts credits
 * lets its last stages move every cycle and decides its stall from
 * registers.
 *
 * | port     | width | meaning                                       |
 * |----------|-------|-----------------------------------------------|
 * | s_valid  | 1     | push s_data (the writer has counted room)     |
 * | m_*      | WIDTH | output channel, from registers                |
 * | count    | CW    | entries held, 0 to DEPTH + 1 (a register sum) |
 */
module stream_fifo #(
    parameter WIDTH = 8,
    parameter DEPTH = 8,
    parameter CW = $clog2(DEPTH + 2)
) (
    input  wire             clk,
    input  wire             rst,

    input  wire             s_valid,
    input  wire [WIDTH-1:0] s_data,

    output wire             m_valid,
    input  wire             m_ready,
    output wire [WIDTH-1:0] m_data,

    output wire [CW-1:0]    count
);

localparam PW = DEPTH > 1 ? $clog2(DEPTH) : 1;

// Illegal parameters stop elaboration (no elaboration $error in Icarus 11).
generate
    if (DEPTH < 1) begin : g_bad_depth
        stream_fifo_DEPTH_must_be_at_least_1 bad_depth();
    end
endgenerate

reg [WIDTH-1:0] mem [0:DEPTH-1];
reg [PW-1:0]    wr_ptr_reg = {PW{1'b0}}, rd_ptr_reg = {PW{1'b0}};
reg [CW-1:0]    mem_count_reg = {CW{1'b0}};
reg             out_valid_reg = 1'b0;
reg [WIDTH-1:0] out_data_reg;

assign m_valid = out_valid_reg;
assign m_data = out_data_reg;
assign count = mem_count_reg + {{(CW-1){1'b0}}, out_valid_reg};

// The output register takes the oldest entry: the memory's, else the
// input's (the memory holds entries only while the output is full).
wire out_load = !out_valid_reg || m_ready;
wire mem_empty = mem_count_reg == {CW{1'b0}};
wire take_mem = out_load && !mem_empty;
wire push_mem = s_valid && !(out_load && mem_empty);

function [PW-1:0] ptr_inc(input [PW-1:0] ptr);
    ptr_inc = {{(32-PW){1'b0}}, ptr} == DEPTH - 1 ? {PW{1'b0}} : ptr + 1'b1;
endfunction

always @(posedge clk) begin
    if (out_load) begin
        out_valid_reg <= !mem_empty || s_valid;
        out_data_reg <= mem_empty ? s_data : mem[rd_ptr_reg];
    end
    if (push_mem) begin
        mem[wr_ptr_reg] <= s_data;
        wr_ptr_reg <= ptr_inc(wr_ptr_reg);
    end
    if (take_mem) begin
        rd_ptr_reg <= ptr_inc(rd_ptr_reg);
    end
    mem_count_reg <= mem_count_reg + {{(CW-1){1'b0}}, push_mem} - {{(CW-1){1'b0}}, take_mem};
    if (rst) begin
        out_valid_reg <= 1'b0;
        wr_ptr_reg <= {PW{1'b0}};
        rd_ptr_reg <= {PW{1'b0}};
        mem_count_reg <= {CW{1'b0}};
    end
end

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
always @(posedge clk) begin
    if (!rst) begin
        assert (!(push_mem && !take_mem && {{(32-CW){1'b0}}, mem_count_reg} == DEPTH))
        else metaroce_assertion_failed("stream_fifo: a push with no room (the writer's credits are wrong)");
        assert (mem_empty || out_valid_reg)
        else metaroce_assertion_failed("stream_fifo: entries wait behind an empty output");
    end
end
`endif

endmodule

`resetall

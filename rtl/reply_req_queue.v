// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Reply request queue: the requests a per-QP pipeline's deciding stage
 * (B; the responder's C with selective ACKs) makes (the notification
 * point's CNPs, the responder's ACKs and NAKs), waiting for the reply-frame
 * builder (roce_reply_frame.v). That stage, B below, never waits: its
 * event writes the free slot at the write pointer whether or not it sends
 * (the user holds its input so that a slot is free for each event in its
 * pipeline), and only the pointer and count wait for the decision
 * (s_commit, late in B's cycle).
 *
 * The head is the slot at the read pointer, a distributed-RAM read at a
 * registered address: a request B queues into an empty queue is at the
 * head the next cycle. (A registered copy of the head, loaded from the slot after a pop,
 * put the pop's decision before the RAM's address, whose fanout spans the
 * request's width: slower on ECP5, docs/timing.md.)
 *
 * | port      | width | meaning                                              |
 * |-----------|-------|------------------------------------------------------|
 * | s_write   | 1     | B holds an event: s_req fills the free slot          |
 * | s_commit  | 1     | and is queued (only with s_write)                    |
 * | s_req     | WIDTH | the request                                          |
 * | s_pending | 2     | events in the user's pipeline that may still queue   |
 * |           |       | one (R's and B's)                                    |
 * | s_room    | 1     | room for a request from each and from one more: the  |
 * |           |       | user's input may take an event (from registers when  |
 * |           |       | m_take and s_pending are)                            |
 * | m_take    | 1     | the builder is idle                                  |
 * | m_start   | 1     | it takes the head (m_take with a request queued)     |
 * | m_head    | WIDTH | the oldest request                                   |
 * | m_pending | 1     | a request is queued                                  |
 */
module reply_req_queue #(
    parameter WIDTH = 8,
    parameter DEPTH = 4
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire                   s_write,
    input  wire                   s_commit,
    input  wire [WIDTH-1:0]       s_req,

    input  wire [1:0]             s_pending,
    output wire                   s_room,

    input  wire                   m_take,
    output wire                   m_start,
    output wire [WIDTH-1:0]       m_head,
    output wire                   m_pending
);

localparam PTR_WIDTH = DEPTH > 1 ? $clog2(DEPTH) : 1;
localparam COUNT_WIDTH = $clog2(DEPTH + 1);

// The pointers wrap at DEPTH.
generate
    if (DEPTH < 2 || (DEPTH & (DEPTH - 1)) != 0) begin : g_bad_depth
        reply_req_queue_DEPTH_must_be_a_power_of_2_from_2 bad_depth();
    end
endgenerate

reg [WIDTH-1:0]       mem [0:DEPTH-1];
reg [PTR_WIDTH-1:0]   wr_ptr_reg = 0, rd_ptr_reg = 0;
reg [COUNT_WIDTH-1:0] count_reg = 0;

wire                   pop = m_take && count_reg != 0;
wire [COUNT_WIDTH-1:0] left_after_pop = count_reg - {{(COUNT_WIDTH-1){1'b0}}, pop};

// Claims on the slots after this cycle's pop, up to DEPTH + 2.
wire [COUNT_WIDTH:0]   claims = {1'b0, left_after_pop} + {{(COUNT_WIDTH-1){1'b0}}, s_pending};
assign s_room = claims < DEPTH;
assign m_start = pop;
assign m_head = mem[rd_ptr_reg];
assign m_pending = count_reg != 0;

always @(posedge clk) begin
    if (s_write) begin
        mem[wr_ptr_reg] <= s_req;
    end
    if (s_commit) begin
        wr_ptr_reg <= wr_ptr_reg + 1;
    end
    if (pop) begin
        rd_ptr_reg <= rd_ptr_reg + 1;
    end
    count_reg <= left_after_pop + {{(COUNT_WIDTH-1){1'b0}}, s_commit};

    if (rst) begin
        wr_ptr_reg <= 0;
        rd_ptr_reg <= 0;
        count_reg <= 0;
    end
end

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
always @(posedge clk) begin
    if (!rst) begin
        // The user's hold keeps a slot free for B's event.
        assert (!s_write || left_after_pop < DEPTH)
        else metaroce_assertion_failed("reply_req_queue: B's request found no free slot");
        assert (!s_commit || s_write)
        else metaroce_assertion_failed("reply_req_queue: a request queued without its slot written");
    end
end
`endif

endmodule

`resetall

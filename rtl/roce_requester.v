// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "metaroce_cfg.vh"

/*
 * RC requester, first part (SPEC.md §6.11): RoCEv2 go-back-N on the send
 * side. Sent RC SEND/WRITE requests advance a QP's next PSN; received
 * ACKs acknowledge up to their PSN; a received NAK "PSN sequence error"
 * acknowledges what is before its PSN and asks the host for a
 * retransmission of everything from it on (its PSN and the count up to
 * the next PSN). Go-backs without progress are counted: past cfg
 * retry_cnt of them the request says "retry exhausted" instead and the QP
 * is in error, taking no more events. No timer yet. With cfg ack_mode
 * other than rocev2 every event is taken and dropped.
 *
 * Pipelined as the responder (roce_responder.v): an event a cycle. Stage
 * A takes the event and reads its QP's RAM word; stage R registers the
 * word (forwarded from a write of the same QP in the read's cycle or from
 * W's word; B's updated word is registered beside it and selected at B);
 * stage B decides and updates the word, and stage W writes it back from a
 * register. B never waits: a retransmit request it decides on is pushed
 * into the output buffer (stream_fifo.v, OUT_DEPTH entries and its output
 * register), whose output is m_retx_*, from W's registers: B's decision
 * fans out to no buffer enable. The input is held, from registers alone,
 * while the buffer has no room for a request from each NAK in R, B and W
 * and from two more events. With OUT_DEPTH 5, NAKs back to back, each a
 * request, are taken one a cycle while m_retx_ready is high and the buffer
 * holds only the request leaving (after m_retx_ready was low, the input
 * waits 2 or 3 cycles more while the buffer drains down to it). An event
 * reaches m_retx_* 4 cycles after it was taken (A, R, B, W, then the
 * buffer's output register), when the buffer was empty.
 * Per-QP state is one RAM word per QP, cleared by a sweep after reset
 * (QP_COUNT cycles with s_evt_ready low). QP context loads do not touch it.
 *
 * | port            | width      | meaning                                       |
 * |-----------------|------------|-----------------------------------------------|
 * | cfg             | CFG_WIDTH  | registers (ack_mode, retry_cnt), held constant|
 * | s_evt_time      | 64         | tick (ns) of the packet                       |
 * | s_evt_qp        | 24         | local QP (sent: the sending QP; received: the |
 * |                 |            | ACK's BTH DestQP); QPs >= QP_COUNT are taken  |
 * |                 |            | and ignored                                   |
 * | s_evt_tx        | 1          | 1: a sent RC SEND/WRITE request; 0: a         |
 * |                 |            | received ACK or NAK                           |
 * | s_evt_psn       | 24         | BTH PSN                                       |
 * | s_evt_syndrome  | 8          | received: the AETH syndrome (unused if sent)  |
 * | m_retx_time     | 64         | retransmit request: the NAK's tick            |
 * | m_retx_qp       | 24         | ... the local QP                              |
 * | m_retx_psn      | 24         | ... the first PSN to send again (the NAK's)   |
 * | m_retx_count    | 24         | ... how many: (nxt - psn) mod 2^24            |
 * | m_retx_cause    | 2          | ... 0: a NAK, go back; 1: retry exhausted     |
 * |                 |            | (nothing is sent again, the QP is in error)   |
 * | busy            | 1          | an event or request is still in the block     |
 *
 * Only sent events with rc_req and received events with an AETH syndrome
 * (RC ACKNOWLEDGE, opcode 0x11) are presented here (roce_cn.v decides).
 *
 * RAM word (RQ_ENTRY_WIDTH bits): valid, error (retry exhausted), retries 3
 * (go-backs since una last moved on), una 24 (the oldest unacknowledged
 * PSN), nxt 24 (the PSN after the newest sent).
 */
module roce_requester #(
    parameter QP_COUNT = 1024
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [`CFG_WIDTH-1:0]  cfg,

    input  wire                   s_evt_valid,
    output wire                   s_evt_ready,
    input  wire [63:0]            s_evt_time,
    input  wire [23:0]            s_evt_qp,
    input  wire                   s_evt_tx,
    input  wire [23:0]            s_evt_psn,
    input  wire [7:0]             s_evt_syndrome,

    output wire                   m_retx_valid,
    input  wire                   m_retx_ready,
    output wire [63:0]            m_retx_time,
    output wire [23:0]            m_retx_qp,
    output wire [23:0]            m_retx_psn,
    output wire [23:0]            m_retx_count,
    output wire [1:0]             m_retx_cause,

    output wire                   busy
);

// The registers this module reads: slices of the cfg bus (rtl/metaroce_cfg.vh).
wire [`CFG_ACK_MODE_W-1:0] cfg_ack_mode = cfg[`CFG_ACK_MODE];
wire [`CFG_RETRY_CNT_W-1:0] cfg_retry_cnt = cfg[`CFG_RETRY_CNT];
// The other modules' registers.
wire unused_cfg = &{1'b0, cfg};

// ACK_MODE_*, SYNDROME_NAK_PSN (SPEC.md §6.10; an ACK is any syndrome whose
// top three bits are 0), CAUSE_* (m_retx_cause).
`include "metaroce_defs.vh"

localparam QP_INDEX_WIDTH = QP_COUNT > 1 ? $clog2(QP_COUNT) : 1;
localparam RQ_ENTRY_WIDTH = 1 + 1 + 3 + 24 + 24;
// The retransmit requests out: a buffer W pushes into on credits
// (stream_fifo.v). OUT_DEPTH entries wait in it, one more in its output
// register. A request is packed at W and unpacked at m_retx_*, nowhere else.
// Five: with a request leaving every cycle, one in the output register and
// the NAKs in R, B and W leave room for the event taken next.
localparam OUT_DEPTH = 5;
localparam OUT_WIDTH = 64 + 24 + 24 + 24 + 2;
localparam OUT_CW = $clog2(OUT_DEPTH + 2);

// Illegal parameters stop elaboration: the instance of a module that does
// not exist names the rule (Icarus Verilog 11 has no elaboration $error).
generate
    if (QP_COUNT < 1 || QP_COUNT > (1 << 24)) begin : g_bad_qp_count
        roce_requester_QP_COUNT_must_be_1_to_2_pow_24 bad_qp_count();
    end
endgenerate

reg init_reg = 1'b1, init_next;
reg [QP_INDEX_WIDTH-1:0] init_addr_reg = 0, init_addr_next;

// The event, packed at the input and unpacked at stage B: R holds it while
// its QP's RAM word is read, B while the word is used.
localparam EVT_WIDTH = 64 + QP_INDEX_WIDTH + 1 + 24 + 8;
wire [EVT_WIDTH-1:0] s_evt_word = {s_evt_time, s_evt_qp[QP_INDEX_WIDTH-1:0], s_evt_tx, s_evt_psn, s_evt_syndrome};
reg                 r_valid_reg = 1'b0;
reg [EVT_WIDTH-1:0] r_evt_reg;
wire [QP_INDEX_WIDTH-1:0] r_qp = r_evt_reg[EVT_WIDTH-65 -: QP_INDEX_WIDTH];
wire                      r_tx = r_evt_reg[32];
wire [23:0]               r_psn = r_evt_reg[31:8];
wire [7:0]                r_syndrome = r_evt_reg[7:0];
reg                 b_valid_reg = 1'b0;
reg [EVT_WIDTH-1:0] b_evt_reg;
// From R: the event's PSN + 1, and what its syndrome says.
reg [23:0]          b_psn_next_reg;
reg                 b_ack_reg;
reg                 b_nak_psn_reg;
wire [63:0]  b_time;
wire [QP_INDEX_WIDTH-1:0] b_qp;
wire         b_tx;
wire [23:0]  b_psn;
wire [7:0]   b_syndrome;
assign {b_time, b_qp, b_tx, b_psn, b_syndrome} = b_evt_reg;
// Decoded at R (b_ack_reg, b_nak_psn_reg).
wire unused_b_syndrome = &{1'b0, b_syndrome};

// The RAM word, packed here and unpacked here and at B's word below,
// nowhere else.
function [RQ_ENTRY_WIDTH-1:0] rq_entry(
    input        valid,
    input        error,
    input [2:0]  retries,
    input [23:0] una,
    input [23:0] nxt
);
    rq_entry = {valid, error, retries, una, nxt};
endfunction
// Each takes one field of the word.
/* verilator lint_off UNUSEDSIGNAL */
function [23:0] rq_una(input [RQ_ENTRY_WIDTH-1:0] word);
    rq_una = word[47:24];
endfunction
function [23:0] rq_nxt(input [RQ_ENTRY_WIDTH-1:0] word);
    rq_nxt = word[23:0];
endfunction
/* verilator lint_on UNUSEDSIGNAL */

// Per-QP state (qp_rmw_pipe.v): the input reads, R sees the word on
// `entry` (forwarded from the write of the read's cycle, or from W's
// word) and registers it; B's updated word is registered beside it when
// B's event is of R's QP, and B takes that one (b_fwd_reg).
wire [RQ_ENTRY_WIDTH-1:0] entry;
reg  [RQ_ENTRY_WIDTH-1:0] b_entry_reg;
reg                       b_fwd_reg = 1'b0;
reg  [RQ_ENTRY_WIDTH-1:0] b_fwd_word_reg;
// W: B's event's updated word, written back from a register.
reg                       w_valid_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0]  w_qp_reg;
reg  [RQ_ENTRY_WIDTH-1:0] w_word_reg;
reg                       wr_en;
reg [QP_INDEX_WIDTH-1:0]  wr_addr;
reg [RQ_ENTRY_WIDTH-1:0]  wr_data;

// B's word: as read, or B's own last word when its event was of this QP.
wire        ent_valid;
wire        ent_error;
wire [2:0]  ent_retries;
wire [23:0] ent_una;
wire [23:0] ent_nxt;
wire [RQ_ENTRY_WIDTH-1:0] ent_word = b_fwd_reg ? b_fwd_word_reg : b_entry_reg;
assign {ent_valid, ent_error, ent_retries, ent_una, ent_nxt} = ent_word;

// Stage B's decision (SPEC.md §6.11), PSNs mod 2^24. The PSN compares are
// worked out from each of the two words B may take, from registers, and
// chosen by b_fwd_reg last: the forwarding select stands behind the carry
// chains, not before them (the word's other fields are selected first).
localparam DEC_IN_FLIGHT = 0, DEC_AT_UNA = 1, DEC_TX_NEW = 2;
// For a word's una and nxt, the event's PSN p and p + 1:
// - in flight: p among the packets in flight, una .. nxt - 1, that is
//   (p - una) mod 2^24 < (nxt - una) mod 2^24, from three compares side by
//   side rather than two subtractions and a compare in a row: a wrapped
//   difference is its plain one plus 2^24 when its operand is below una, so
//   the two sides compare as p < nxt unless exactly one of p, nxt is below
//   una, and then the answer is nxt < una;
// - at una: p == una (a NAK there acknowledges nothing);
// - tx new: a sent request beyond nxt, (p + 1 - nxt) in 1 .. 2^23 - 1.
// (Only bit 23 of `ahead`, p + 1 - nxt, is used.)
/* verilator lint_off UNUSEDSIGNAL */
function [2:0] decide(input [23:0] una, input [23:0] nxt, input [23:0] p, input [23:0] p_next);
    reg [23:0] ahead;
    begin
        ahead = p_next - nxt;
        decide[DEC_IN_FLIGHT] = (p < una) == (nxt < una) ? p < nxt : nxt < una;
        decide[DEC_AT_UNA] = p == una;
        decide[DEC_TX_NEW] = p_next != nxt && !ahead[23];
    end
endfunction
/* verilator lint_on UNUSEDSIGNAL */
wire [2:0]  dec_read = decide(rq_una(b_entry_reg), rq_nxt(b_entry_reg), b_psn, b_psn_next_reg);
wire [2:0]  dec_fwd = decide(rq_una(b_fwd_word_reg), rq_nxt(b_fwd_word_reg), b_psn, b_psn_next_reg);
wire [2:0]  dec = b_fwd_reg ? dec_fwd : dec_read;
wire        in_flight = dec[DEC_IN_FLIGHT];
wire        at_una = dec[DEC_AT_UNA];
wire        tx_new = dec[DEC_TX_NEW];
// An ACK or NAK answers a packet in flight; a QP in error takes neither.
wire        take_ack = !b_tx && ent_valid && !ent_error && b_ack_reg && in_flight;
wire        take_nak = !b_tx && ent_valid && !ent_error && b_nak_psn_reg && in_flight;
// A NAK's go-back is one more retry, counted from 0 again when the NAK
// acknowledges packets (its PSN past una); with none left, retry exhausted.
wire        retries_used = ent_retries == cfg_retry_cnt;
wire        nak_exhausted = at_una ? retries_used : cfg_retry_cnt == 3'd0;
wire [2:0]  nak_retries = at_una ? (retries_used ? ent_retries : ent_retries + 3'd1)
                           : (cfg_retry_cnt == 3'd0 ? 3'd0 : 3'd1);
// A sent request: the QP's first starts it (una = p); one beyond nxt moves
// nxt on. A QP in error keeps its word.
wire        take_tx = b_tx && !ent_error;
// B's word after its event, field by field: an ACK acknowledges its PSN
// (progress: the retries start again), a NAK what is before it. Otherwise
// the word is unchanged.
wire [RQ_ENTRY_WIDTH-1:0] b_word = rq_entry(
    ent_valid || take_tx,
    ent_error || (take_nak && nak_exhausted),
    take_ack ? 3'd0 : take_nak ? nak_retries : ent_retries,
    (take_tx && !ent_valid) || take_nak ? b_psn : take_ack ? b_psn_next_reg : ent_una,
    take_tx && (!ent_valid || tx_new) ? b_psn_next_reg : ent_nxt);
// A NAK's retransmit request: from its PSN to nxt - 1, pushed from W's
// registers.
wire        retx_decided = b_valid_reg && take_nak;
wire [23:0] retx_count = ent_nxt - b_psn;
reg         w_push_reg = 1'b0;
reg  [OUT_WIDTH-1:0] w_retx_reg;
// The events that may still push a request: NAKs in R, B and W.
wire        r_may_push = r_valid_reg && !r_tx && r_syndrome == SYNDROME_NAK_PSN;
wire        b_may_push = b_valid_reg && !b_tx && b_nak_psn_reg;
wire        fwd_from_b = b_valid_reg && b_qp == r_qp;
wire        fwd_from_w = w_valid_reg && w_qp_reg == r_qp;

qp_rmw_pipe #(
    .WIDTH(RQ_ENTRY_WIDTH),
    .DEPTH(QP_COUNT),
    .ADDR_WIDTH(QP_INDEX_WIDTH)
) state_inst (
    .clk(clk),
    // A reads the input's QP every cycle: R, which never waits, uses the
    // word only after an event was taken, and no logic stands before the
    // block RAM's read enable.
    .rd_en(1'b1),
    .rd_addr(s_evt_qp[QP_INDEX_WIDTH-1:0]),
    .entry(entry),
    // W's word being written, if of R's QP (B's, newer, is taken at B).
    .newer_valid(fwd_from_w),
    .newer(w_word_reg),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data)
);

wire [OUT_CW-1:0] out_count;
// Room for a request from each NAK in R, B and W and from the events taken
// this cycle and the one before, counted a cycle ahead (registers only):
// the count and the NAKs of the cycle before, and two more.
reg               out_room_reg = 1'b0;

stream_fifo #(
    .WIDTH(OUT_WIDTH),
    .DEPTH(OUT_DEPTH),
    .CW(OUT_CW)
) out_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_valid(w_push_reg),
    .s_data(w_retx_reg),
    .m_valid(m_retx_valid),
    .m_ready(m_retx_ready),
    .m_data({m_retx_time, m_retx_qp, m_retx_psn, m_retx_count, m_retx_cause}),
    .count(out_count)
);

assign s_evt_ready = !init_reg && out_room_reg;
assign busy = init_reg || r_valid_reg || b_valid_reg || w_valid_reg || out_count != {OUT_CW{1'b0}};
wire   accept = s_evt_valid && s_evt_ready;
// Events are taken and dropped unless ack_mode is rocev2, and for QPs past
// the table.
wire   accept_in_range = accept && cfg_ack_mode == ACK_MODE_ROCEV2 && {8'd0, s_evt_qp} < QP_COUNT;

// The RAM's writes: the sweep, W's write-back.
always @* begin
    init_next = init_reg;
    init_addr_next = init_addr_reg;
    wr_en = 1'b0;
    wr_addr = w_qp_reg;
    wr_data = w_word_reg;

    if (init_reg) begin
        wr_en = 1'b1;
        wr_addr = init_addr_reg;
        wr_data = {RQ_ENTRY_WIDTH{1'b0}};
        init_addr_next = init_addr_reg + 1;
        if ({{(32-QP_INDEX_WIDTH){1'b0}}, init_addr_reg} == QP_COUNT - 1) begin
            init_next = 1'b0;
        end
    end else if (w_valid_reg) begin
        wr_en = 1'b1;
    end
end

always @(posedge clk) begin
    init_reg <= init_next;
    init_addr_reg <= init_addr_next;

    // R takes the event; B takes R's with its word (W's being written, if
    // of the same QP) and B's updated word beside it; W takes B's.
    r_valid_reg <= accept_in_range;
    // R never holds, so its event register loads every cycle (r_valid_reg
    // says whether it holds one): its enables wait for no handshake.
    r_evt_reg <= s_evt_word;
    b_valid_reg <= r_valid_reg;
    b_evt_reg <= r_evt_reg;
    b_psn_next_reg <= r_psn + 24'd1;
    b_ack_reg <= r_syndrome[7:5] == 3'd0;
    b_nak_psn_reg <= r_syndrome == SYNDROME_NAK_PSN;
    b_entry_reg <= entry;
    b_fwd_reg <= fwd_from_b;
    b_fwd_word_reg <= b_word;
    w_valid_reg <= b_valid_reg;
    w_push_reg <= retx_decided;
    w_retx_reg <= {b_time, {{(24-QP_INDEX_WIDTH){1'b0}}, b_qp}, b_psn, retx_count,
                   nak_exhausted ? CAUSE_RETRY_EXHAUSTED : CAUSE_NAK};
    w_qp_reg <= b_qp;
    w_word_reg <= b_word;
    // Every NAK in R, B and W may push a request, and so may the events
    // taken this cycle and the one before (this register is a cycle late):
    // see the header.
    out_room_reg <= {2'b0, out_count} + {{(OUT_CW+1){1'b0}}, r_may_push} + {{(OUT_CW+1){1'b0}}, b_may_push}
        + {{(OUT_CW+1){1'b0}}, w_push_reg} <= OUT_DEPTH + 1 - 2;

    if (rst) begin
        init_reg <= 1'b1;
        init_addr_reg <= 0;
        r_valid_reg <= 1'b0;
        b_valid_reg <= 1'b0;
        b_fwd_reg <= 1'b0;
        w_valid_reg <= 1'b0;
        w_push_reg <= 1'b0;
        out_room_reg <= 1'b0;
    end
end

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
always @(posedge clk) begin
    if (!rst) begin
        // The credits: a request is pushed only with room for it, whatever
        // the output does this cycle.
        assert (!(w_push_reg && {{(32-OUT_CW){1'b0}}, out_count} > OUT_DEPTH))
        else metaroce_assertion_failed("roce_requester: a retransmit request with no room in the output buffer");
        // ... and every NAK in flight has room for its request.
        assert (!(!init_reg && {{(32-OUT_CW){1'b0}}, out_count} + {31'd0, r_may_push} + {31'd0, b_may_push}
                  + {31'd0, w_push_reg} > OUT_DEPTH + 1))
        else metaroce_assertion_failed("roce_requester: more NAKs in flight than the output buffer has room for");
        // No event is taken during the sweep.
        assert (!(init_reg && (r_valid_reg || b_valid_reg || w_valid_reg)))
        else metaroce_assertion_failed("roce_requester: an event in the pipeline during the RAM sweep");
        // A retransmit request asks for at least the NAK's own packet.
        assert (!(retx_decided && retx_count == 24'd0))
        else metaroce_assertion_failed("roce_requester: a retransmit request of no packets");
        // The retries never pass the limit (cfg is held constant).
        assert (!(b_valid_reg && ent_valid && ent_retries > cfg_retry_cnt))
        else metaroce_assertion_failed("roce_requester: more go-backs counted than retry_cnt allows");
    end
end
`endif

endmodule

`resetall

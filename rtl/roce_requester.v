// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "metaroce_cfg.vh"

/*
 * RC requester (SPEC.md §6.11): RoCEv2 go-back-N on the send side, and
 * with cfg ack_mode metaroce MetaRoCE's selective resends (rule 8). Sent
 * RC SEND/WRITE requests advance a QP's next PSN; received ACKs
 * acknowledge up to their PSN; a received NAK "PSN sequence error"
 * acknowledges what is before its PSN and asks the host for a
 * retransmission of everything from it on (its PSN and the count up to
 * the next PSN). Go-backs without progress are counted: past cfg
 * retry_cnt of them the request says "retry exhausted" instead and the QP
 * is in error, taking no more events. A retransmit timer per QP (cfg
 * retx_timeout, 4.096 us * 2^v in units of 2^12 ticks; 0 none) runs while
 * a QP has packets in flight: started by a request sent while it is not
 * running, again by an ACK that leaves packets in flight and by each
 * go-back, 2^(retx_timeout + retries) units on (the backoff). Every event
 * of the block comes here, its time alone when it is none of the
 * requester's (s_evt_input low), and before it is taken every QP whose
 * timer has run out goes back from una (cause timeout), QP by QP. In
 * metaroce mode a selective ACK (an ACK with the extension) acknowledges
 * as an ACK, or nothing new at una - 1, and asks once for the PSNs its
 * bitmap shows missing from rtx on (cause selective, with a mask; again
 * only by rule 9, below); a go-back moves rtx back to where it starts. A
 * selective ACK that shows received a packet sent after the last resend,
 * with una asked for and still missing, finds una's resend lost and asks
 * again from una (rule 9). With cfg ack_mode off every event is taken and
 * dropped.
 *
 * The timers are scanned, not counted: quiet_until_reg is a unit before
 * which no due comes. Each event is registered at the input (I), where the
 * unit it may start a timer for, its unit + 2^retx_timeout, is added, and
 * then at the head (H), which on the move from I lowers quiet_until_reg to
 * that bound and records whether the event's unit has reached
 * quiet_until_reg: both compares are of registers. An event whose unit has
 * not reached it goes on at once (the requester's input into A, a tick
 * nowhere). One that has waits while the pipeline drains, every QP passes
 * through A, R, B and W as a scan event of the head's time (one a cycle,
 * on the same credits as the input; those due go back), the nearest due
 * left is found over two stages behind W, and quiet_until_reg is set to it
 * (or to the head's own bound, if nearer). So a scan costs QP_COUNT + 8
 * to 11 cycles, and comes at most once per event, when its unit has
 * reached the bound (SPEC.md §6.11).
 *
 * Pipelined as the responder (roce_responder.v): an event a cycle. Stage
 * A takes the event and reads its QP's RAM word; stage R registers the
 * word (forwarded from a write of the same QP in the read's cycle or from
 * W's word; B's updated word is registered beside it and selected at B);
 * stage B decides and updates the word, and stage W writes it back from a
 * register. B never waits: a retransmit request it decides on is
 * registered at W (a selective one's mask and count are worked out there
 * from B's registers) and pushed from X's registers into the output buffer
 * (stream_fifo.v, OUT_DEPTH entries and its output register), whose output
 * is m_retx_*: B's decision fans out to no buffer enable. The input is
 * held, from registers alone, while the buffer has no room for a request
 * from each NAK, selective ACK and scan event in R, B, W and X and from
 * two more events. With OUT_DEPTH 6, NAKs back to back, each a request,
 * are taken one a cycle while m_retx_ready is high and the buffer holds
 * only the request leaving (after m_retx_ready was low, the input waits 2
 * or 3 cycles more while the buffer drains down to it). An event reaches
 * m_retx_* 7 cycles after it was taken (I; H, A's read; R; B; W; X; then
 * the buffer's output register), when the buffer was empty and no scan
 * ran. A bitmap's span (its highest set bit) takes two steps, each byte's
 * top bit between I and H and the top byte's at R, and the PSN at its end
 * is added between R and B; B works rule 8 out from both candidate words
 * and chooses last, and registers the distances W's mask needs.
 * Per-QP state is one RAM word per QP and the timer's due in a RAM of its
 * own (used by scan events only: read a cycle before A, so that R has it
 * in a register; written from a register a stage after W: D), cleared by
 * a sweep after reset
 * (QP_COUNT cycles with s_evt_ready low). QP context loads do not touch it.
 *
 * | port            | width      | meaning                                       |
 * |-----------------|------------|-----------------------------------------------|
 * | cfg             | CFG_WIDTH  | registers (ack_mode, retry_cnt, retx_timeout),|
 * |                 |            | held constant                                 |
 * | s_evt_time      | 64         | tick (ns) of the event, never going back      |
 * | s_evt_input     | 1          | 1: the requester's input (below); 0: any other|
 * |                 |            | event of the block, its time alone            |
 * | s_evt_qp        | 24         | local QP (sent: the sending QP; received: the |
 * |                 |            | ACK's BTH DestQP); QPs >= QP_COUNT are taken  |
 * |                 |            | and ignored                                   |
 * | s_evt_tx        | 1          | 1: a sent RC SEND/WRITE request; 0: a         |
 * |                 |            | received ACK or NAK                           |
 * | s_evt_psn       | 24         | BTH PSN                                       |
 * | s_evt_syndrome  | 8          | received: the AETH syndrome (unused if sent)  |
 * | s_evt_sack_*    | 1, 1, 64   | received: the ACK's selective-ACK extension   |
 * |                 |            | (valid, beyond, bitmap; SPEC.md §6.10)        |
 * | m_retx_time     | 64         | retransmit request: the event's tick          |
 * | m_retx_qp       | 24         | ... the local QP                              |
 * | m_retx_psn      | 24         | ... the first PSN to send again (the NAK's,   |
 * |                 |            | or una on a timeout)                          |
 * | m_retx_count    | 24         | ... how many: (nxt - psn) mod 2^24            |
 * | m_retx_cause    | 2          | ... 0: a NAK, go back; 1: retry exhausted     |
 * |                 |            | (nothing is sent again, the QP is in error);  |
 * |                 |            | 2: the timer ran out, go back; 3: selective   |
 * | m_retx_mask     | 64         | ... bit i: psn + i is sent again; every one   |
 * |                 |            | from psn + 64 on is (all ones for a go-back)  |
 * | timer_valid     | 1          | a timer may run out: quiet_until_reg is not   |
 * |                 |            | all ones                                      |
 * | timer_time      | 64         | ... at this tick or later (its first tick)    |
 * | busy            | 1          | an event or request is still in the block     |
 *
 * The requester's input is sent events with rc_req and received events
 * with an AETH syndrome (RC ACKNOWLEDGE, opcode 0x11) (roce_cn.v decides).
 *
 * RAM word (RQ_ENTRY_WIDTH bits): valid, error (retry exhausted), armed
 * (the timer runs: packets in flight, no error, a timer configured),
 * retries 3 (go-backs since una last moved on), una 24 (the oldest
 * unacknowledged PSN), nxt 24 (the PSN after the newest sent), rtx 24 (the
 * PSNs before it a selective ACK showed missing are asked for), marked
 * and mark 24 (rule 9: a resend was sent since the last request from una
 * or go-back, and nxt as it was: what is sent from mark on left after it).
 * Due RAM
 * word: the unit (tick >> 12, mod 2^32) the timer runs out at, while armed.
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
    input  wire                   s_evt_input,
    input  wire [23:0]            s_evt_qp,
    input  wire                   s_evt_tx,
    input  wire [23:0]            s_evt_psn,
    input  wire [7:0]             s_evt_syndrome,
    input  wire                   s_evt_sack_valid,
    input  wire                   s_evt_sack_beyond,
    input  wire [63:0]            s_evt_sack_bitmap,

    output wire                   m_retx_valid,
    input  wire                   m_retx_ready,
    output wire [63:0]            m_retx_time,
    output wire [23:0]            m_retx_qp,
    output wire [23:0]            m_retx_psn,
    output wire [23:0]            m_retx_count,
    output wire [1:0]             m_retx_cause,
    output wire [63:0]            m_retx_mask,

    output wire                   timer_valid,
    output wire [63:0]            timer_time,

    output wire                   busy
);

// The registers this module reads: slices of the cfg bus (rtl/metaroce_cfg.vh).
wire [`CFG_ACK_MODE_W-1:0] cfg_ack_mode = cfg[`CFG_ACK_MODE];
wire [`CFG_RETRY_CNT_W-1:0] cfg_retry_cnt = cfg[`CFG_RETRY_CNT];
wire [`CFG_RETX_TIMEOUT_W-1:0] cfg_retx_timeout = cfg[`CFG_RETX_TIMEOUT];
// The other modules' registers.
wire unused_cfg = &{1'b0, cfg};

// ACK_MODE_*, SYNDROME_NAK_PSN (SPEC.md §6.10; an ACK is any syndrome whose
// top three bits are 0), CAUSE_* (m_retx_cause).
`include "metaroce_defs.vh"

localparam QP_INDEX_WIDTH = QP_COUNT > 1 ? $clog2(QP_COUNT) : 1;
localparam RQ_ENTRY_WIDTH = 1 + 1 + 1 + 3 + 24 + 24 + 24 + 1 + 24;
// The retransmit requests out: a buffer X pushes into on credits
// (stream_fifo.v). OUT_DEPTH entries wait in it, one more in its output
// register. A request is packed at W (into X) and unpacked at m_retx_*,
// nowhere else. Six: with a request leaving every cycle, one in the output
// register and the NAKs, selective ACKs and scan events in R, B, W and X
// leave room for the event taken next.
localparam OUT_DEPTH = 6;
localparam OUT_WIDTH = 64 + 24 + 24 + 24 + 2 + 64;
localparam OUT_CW = $clog2(OUT_DEPTH + 2);
// The timer's units: ticks >> 12 (IBTA's 4.096 us), 52 bits for the bound
// and the head's unit, 32 (mod 2^32) for the dues. QUIET_NONE: no due.
localparam UNIT_SHIFT = 12;
localparam [51:0] QUIET_NONE = {52{1'b1}};

// Illegal parameters stop elaboration: the instance of a module that does
// not exist names the rule (Icarus Verilog 11 has no elaboration $error).
generate
    if (QP_COUNT < 1 || QP_COUNT > (1 << 24)) begin : g_bad_qp_count
        roce_requester_QP_COUNT_must_be_1_to_2_pow_24 bad_qp_count();
    end
endgenerate

reg init_reg = 1'b1, init_next;
integer k;
reg [QP_INDEX_WIDTH-1:0] init_addr_reg = 0, init_addr_next;

wire sel_on = cfg_ack_mode == ACK_MODE_METAROCE;
wire ack_on = cfg_ack_mode == ACK_MODE_ROCEV2 || sel_on;
wire timer_on = cfg_retx_timeout != 0;

// The scan's states: RUN takes events; DRAIN waits for the pipeline to
// empty before a scan; SCAN sends every QP through it; FINISH waits for the
// last to leave D; SETTLE sets quiet_until_reg.
localparam [2:0] ST_RUN = 3'd0, ST_DRAIN = 3'd1, ST_SCAN = 3'd2, ST_FINISH = 3'd3, ST_SETTLE = 3'd4;
reg [2:0] state_reg = ST_RUN;
reg [QP_INDEX_WIDTH-1:0] scan_qp_reg = 0;
reg [QP_INDEX_WIDTH-1:0] scan_qp_next_reg = 0;
reg [51:0] quiet_until_reg = QUIET_NONE;
// The first tick of that unit: a driver that moves time on to it (a time
// event, KIND_TIME) lets a timer due then go back with no other traffic.
assign timer_valid = quiet_until_reg != QUIET_NONE;
assign timer_time = {quiet_until_reg, {UNIT_SHIFT{1'b0}}};

// I: the event as it came in, and the bound of a timer it may start.
reg                       i_valid_reg = 1'b0;
reg [63:0]                i_time_reg;
reg                       i_input_reg;
reg [QP_INDEX_WIDTH-1:0]  i_qp_reg;
reg                       i_tx_reg;
reg [23:0]                i_psn_reg;
reg [7:0]                 i_syndrome_reg;
reg                       i_sack_reg;
reg                       i_beyond_reg;
reg [63:0]                i_bitmap_reg;
reg [51:0]                i_bound_reg;
// H: the head, and whether a scan comes before it.
reg                       h_valid_reg = 1'b0;
reg [63:0]                h_time_reg;
reg                       h_input_reg;
reg [QP_INDEX_WIDTH-1:0]  h_qp_reg;
reg                       h_tx_reg;
reg [23:0]                h_psn_reg;
reg [7:0]                 h_syndrome_reg;
reg                       h_sack_reg;
reg                       h_beyond_reg;
reg [62:0]                h_bitmap_reg;
// The bitmap by bytes: which hold a set bit, and each one's highest.
reg [7:0]                 h_byte_any_reg;
reg [23:0]                h_byte_top_reg;
reg [51:0]                h_bound_reg;
reg                       h_scan_reg;
// The quiet bound a scan leaves: the head's unit + the nearest due's
// distance, or none.
reg [51:0]                settle_bound_reg;

wire [51:0] i_unit = i_time_reg[63:UNIT_SHIFT];
// The input's timer lowers the bound (a timer it starts is due no sooner).
wire i_lowers = i_input_reg && timer_on;

// The event, packed at A and unpacked at stage B: R holds it while its
// QP's RAM word is read, B while the word is used. A scan event carries the
// head's time and a QP of the scan.
localparam EVT_WIDTH = 64 + QP_INDEX_WIDTH + 1 + 24 + 8;
reg                 r_valid_reg = 1'b0;
reg                 r_scan_reg = 1'b0;
reg [EVT_WIDTH-1:0] r_evt_reg;
// A scan event's due, read a cycle ahead of its word (below).
reg [31:0]          r_due_reg;
// The selective ACK (rule 8), beside the event: whether there is one (and
// the mode is metaroce), its beyond flag and bitmap, and its span (found
// at R from H's bytes).
reg                 r_sack_reg;
reg                 r_beyond_reg;
// (Bit 63, the bitmap's last PSN, is in the span but never missing.)
reg [62:0]          r_bitmap_reg;
reg [6:0]           r_span_reg;
// The time's unit mod 2^32 (tick bits 43:12).
wire [31:0]               r_unit = r_evt_reg[EVT_WIDTH-64+UNIT_SHIFT+31 -: 32];
wire [QP_INDEX_WIDTH-1:0] r_qp = r_evt_reg[EVT_WIDTH-65 -: QP_INDEX_WIDTH];
wire                      r_tx = r_evt_reg[32];
wire [23:0]               r_psn = r_evt_reg[31:8];
wire [7:0]                r_syndrome = r_evt_reg[7:0];
reg                 b_valid_reg = 1'b0;
reg                 b_scan_reg = 1'b0;
reg [EVT_WIDTH-1:0] b_evt_reg;
// From R: the event's PSN + 1, and what its syndrome says; for a scan, the
// due read and whether it has come.
reg [23:0]          b_psn_next_reg;
reg                 b_ack_reg;
reg                 b_nak_psn_reg;
reg [31:0]          b_due_reg;
reg                 b_due_come_reg;
// From R: a selective ACK (an ACK syndrome with the extension), its beyond
// flag, una + 1 + span (with una the ACK's PSN + 1: the PSN after the last
// the bitmap shows received), the span and whether it is empty, the PSNs
// it shows missing from una on (bit 0 una itself; bit j > 0 bitmap bit
// j - 1 clear).
reg                 b_sack_reg;
reg                 b_beyond_reg;
reg [23:0]          b_end_span_reg;
reg [6:0]           b_span_reg;
reg                 b_span_zero_reg;
reg [63:0]          b_missing_reg;
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
    input        armed,
    input [2:0]  retries,
    input [23:0] una,
    input [23:0] nxt,
    input [23:0] rtx,
    input        marked,
    input [23:0] mark
);
    rq_entry = {valid, error, armed, retries, una, nxt, rtx, marked, mark};
endfunction

// A bitmap's span, the index of its highest set bit + 1 (0 when none), in
// two steps: each byte's highest set bit (between I and H), then the
// highest byte with one (between H and R). `top8` gives the index of the
// highest of eight bits, 0 when none (the lowest bit decides nothing).
/* verilator lint_off UNUSEDSIGNAL */
function [2:0] top8(input [7:0] b);
    begin
        top8[2] = |b[7:4];
        top8[1] = top8[2] ? |b[7:6] : |b[3:2];
        top8[0] = top8[2] ? (top8[1] ? b[7] : b[5]) : (top8[1] ? b[3] : b[1]);
    end
endfunction
/* verilator lint_on UNUSEDSIGNAL */
function [6:0] span_of_bytes(input [7:0] any, input [23:0] tops);
    reg [2:0] byte_index;
    begin
        byte_index = top8(any);
        span_of_bytes = |any ? {1'b0, byte_index, tops[byte_index*3 +: 3]} + 7'd1 : 7'd0;
    end
endfunction
// Each takes one field of the word.
/* verilator lint_off UNUSEDSIGNAL */
function rq_valid(input [RQ_ENTRY_WIDTH-1:0] word);
    rq_valid = word[102];
endfunction
function rq_error(input [RQ_ENTRY_WIDTH-1:0] word);
    rq_error = word[101];
endfunction
function rq_armed(input [RQ_ENTRY_WIDTH-1:0] word);
    rq_armed = word[100];
endfunction
function [2:0] rq_retries(input [RQ_ENTRY_WIDTH-1:0] word);
    rq_retries = word[99:97];
endfunction
function [23:0] rq_una(input [RQ_ENTRY_WIDTH-1:0] word);
    rq_una = word[96:73];
endfunction
function [23:0] rq_nxt(input [RQ_ENTRY_WIDTH-1:0] word);
    rq_nxt = word[72:49];
endfunction
function [23:0] rq_rtx(input [RQ_ENTRY_WIDTH-1:0] word);
    rq_rtx = word[48:25];
endfunction
function rq_marked(input [RQ_ENTRY_WIDTH-1:0] word);
    rq_marked = word[24];
endfunction
function [23:0] rq_mark(input [RQ_ENTRY_WIDTH-1:0] word);
    rq_mark = word[23:0];
endfunction
/* verilator lint_on UNUSEDSIGNAL */

// Per-QP state (qp_rmw_pipe.v): A reads, R sees the word on `entry`
// (forwarded from the write of the read's cycle, or from W's word) and
// registers it; B's updated word is registered beside it when B's event is
// of R's QP, and B takes that one (b_fwd_reg).
wire [RQ_ENTRY_WIDTH-1:0] entry;
reg  [RQ_ENTRY_WIDTH-1:0] b_entry_reg;
reg                       b_fwd_reg = 1'b0;
reg  [RQ_ENTRY_WIDTH-1:0] b_fwd_word_reg;
// W: B's event's updated word, written back from a register.
reg                       w_valid_reg = 1'b0;
reg                       w_scan_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0]  w_qp_reg;
reg  [RQ_ENTRY_WIDTH-1:0] w_word_reg;
reg                       w_start_reg = 1'b0;
reg [31:0]                w_unit_reg;
reg [31:0]                w_due_reg;
reg                       wr_en;
reg [QP_INDEX_WIDTH-1:0]  wr_addr;
reg [RQ_ENTRY_WIDTH-1:0]  wr_data;
// D: the due of a timer W's event started, written from registers, and
// for a scan event the distance to its QP's due, if armed.
reg                       d_valid_reg = 1'b0;
reg                       d_start_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0]  d_qp_reg;
reg [31:0]                d_due_reg;
reg                       d_left_valid_reg = 1'b0;
reg [31:0]                d_left_reg;
// The nearest of a scan's distances, if any QP is armed after it.
reg                       near_valid_reg = 1'b0;
reg [31:0]                near_reg;
reg                       due_wr_en;
reg [QP_INDEX_WIDTH-1:0]  due_wr_addr;
reg [31:0]                due_wr_data;
wire [31:0]               due_rd_data;

// B's word: as read, or B's own last word when its event was of this QP.
wire        ent_valid;
wire        ent_error;
wire        ent_armed;
wire [2:0]  ent_retries;
wire [23:0] ent_una;
wire [23:0] ent_nxt;
wire [23:0] ent_rtx;
wire        ent_marked;
wire [23:0] ent_mark;
wire [RQ_ENTRY_WIDTH-1:0] ent_word = b_fwd_reg ? b_fwd_word_reg : b_entry_reg;
assign {ent_valid, ent_error, ent_armed, ent_retries, ent_una, ent_nxt, ent_rtx, ent_marked, ent_mark} = ent_word;

// Stage B's decision (SPEC.md §6.11), PSNs mod 2^24. The PSN compares are
// worked out from each of the two words B may take, from registers, and
// chosen by b_fwd_reg last: the forwarding select stands behind the carry
// chains, not before them (the word's other fields are selected first).
localparam DEC_IN_FLIGHT = 0, DEC_AT_UNA = 1, DEC_TX_NEW = 2, DEC_NEXT_AT_UNA = 3, DEC_NEXT_AT_NXT = 4;
localparam DEC_RTX_BEHIND = 5, DEC_SPAN_TO_NXT = 6, DEC_RTX_BEFORE_SPAN = 7, DEC_RTX_BEFORE_NXT = 8;
localparam DEC_UNA_BEFORE_RTX = 9, DEC_MARK_REACHED = 10;
// For a word's una and nxt, the event's PSN p and p + 1:
// - in flight: p among the packets in flight, una .. nxt - 1, that is
//   (p - una) mod 2^24 < (nxt - una) mod 2^24, from three compares side by
//   side rather than two subtractions and a compare in a row: a wrapped
//   difference is its plain one plus 2^24 when its operand is below una, so
//   the two sides compare as p < nxt unless exactly one of p, nxt is below
//   una, and then the answer is nxt < una;
// - at una: p == una (a NAK there acknowledges nothing);
// - tx new: a sent request beyond nxt, (p + 1 - nxt) in 1 .. 2^23 - 1;
// - next at una: p + 1 == una (a new request that brings nxt round to una
//   empties the window, as far as it can tell);
// - next at nxt: p + 1 == nxt (an ACK of the newest acknowledges all).
// For a selective ACK (rule 8), with e = p + 1 + span, the bitmap's end, the
// signs of four differences, side by side:
// - rtx behind: rtx - (p + 1) < 0, nothing from p + 1 on asked for yet;
// - span to nxt: e - nxt >= 0, the span reaches nxt (cut there);
// - rtx before span, before nxt: rtx - e < 0, rtx - nxt < 0;
// - una before rtx: (p + 1) - rtx < 0, una was asked for (rule 9);
// - mark reached: e - mark >= 0, the last PSN the bitmap shows received
//   left after the last resend (rule 9).
// (Only bit 23 of `ahead`, p + 1 - nxt, and of the other differences is
// used.)
/* verilator lint_off UNUSEDSIGNAL */
function [10:0] decide(input [23:0] una, input [23:0] nxt, input [23:0] rtx, input [23:0] mark, input [23:0] p,
                       input [23:0] p_next, input [23:0] end_span);
    reg [23:0] ahead, rtx_since, span_past, rtx_to_span, rtx_to_nxt, una_to_rtx, span_to_mark;
    begin
        ahead = p_next - nxt;
        rtx_since = rtx - p_next;
        span_past = end_span - nxt;
        rtx_to_span = rtx - end_span;
        rtx_to_nxt = rtx - nxt;
        una_to_rtx = p_next - rtx;
        span_to_mark = end_span - mark;
        decide[DEC_IN_FLIGHT] = (p < una) == (nxt < una) ? p < nxt : nxt < una;
        decide[DEC_AT_UNA] = p == una;
        decide[DEC_TX_NEW] = p_next != nxt && !ahead[23];
        decide[DEC_NEXT_AT_UNA] = p_next == una;
        decide[DEC_NEXT_AT_NXT] = p_next == nxt;
        decide[DEC_RTX_BEHIND] = rtx_since[23];
        decide[DEC_SPAN_TO_NXT] = !span_past[23];
        decide[DEC_RTX_BEFORE_SPAN] = rtx_to_span[23];
        decide[DEC_RTX_BEFORE_NXT] = rtx_to_nxt[23];
        decide[DEC_UNA_BEFORE_RTX] = una_to_rtx[23];
        decide[DEC_MARK_REACHED] = !span_to_mark[23];
    end
endfunction
/* verilator lint_on UNUSEDSIGNAL */
wire [10:0] dec_read = decide(rq_una(b_entry_reg), rq_nxt(b_entry_reg), rq_rtx(b_entry_reg), rq_mark(b_entry_reg),
                              b_psn, b_psn_next_reg, b_end_span_reg);
wire [10:0] dec_fwd = decide(rq_una(b_fwd_word_reg), rq_nxt(b_fwd_word_reg), rq_rtx(b_fwd_word_reg),
                             rq_mark(b_fwd_word_reg), b_psn, b_psn_next_reg, b_end_span_reg);
wire [10:0] dec = b_fwd_reg ? dec_fwd : dec_read;
// Rule 8 worked out from each candidate word and chosen last, as `dec`: a
// selective ACK answers a packet in flight or acknowledges nothing new
// (its PSN una - 1): its bitmap is news either way. The span ends at nxt
// when beyond is set or the bitmap reaches it, else at the bitmap's end;
// what is in it from rtx on (from p + 1 when rtx is not past it, or when
// rule 9 finds una's resend lost: una asked for, marked, the bitmap's last
// PSN at or past mark) is asked for, and rtx moves to the span's end. {from p + 1,
// take, span to nxt, the span's end}.
function [26:0] sel_update(input [RQ_ENTRY_WIDTH-1:0] word, input [10:0] d);
    reg to_nxt, empty, from_una, take;
    begin
        to_nxt = b_beyond_reg || d[DEC_SPAN_TO_NXT];
        empty = to_nxt ? d[DEC_NEXT_AT_NXT] : b_span_zero_reg;
        from_una = d[DEC_RTX_BEHIND] || !d[DEC_UNA_BEFORE_RTX]
                   || (rq_marked(word) && !b_span_zero_reg && d[DEC_MARK_REACHED]);
        take = !b_scan_reg && !b_tx && b_sack_reg && rq_valid(word) && !rq_error(word)
               && (d[DEC_IN_FLIGHT] || d[DEC_NEXT_AT_UNA]) && !empty
               && (from_una || (to_nxt ? d[DEC_RTX_BEFORE_NXT] : d[DEC_RTX_BEFORE_SPAN]));
        sel_update = {from_una, take, to_nxt, to_nxt ? rq_nxt(word) : b_end_span_reg};
    end
endfunction
wire [26:0] sel_read = sel_update(b_entry_reg, dec_read);
wire [26:0] sel_fwd = sel_update(b_fwd_word_reg, dec_fwd);
wire        sel_from_una = b_fwd_reg ? sel_fwd[26] : sel_read[26];
wire        take_sel = b_fwd_reg ? sel_fwd[25] : sel_read[25];
wire        span_to_nxt = b_fwd_reg ? sel_fwd[24] : sel_read[24];
wire [23:0] sel_end = b_fwd_reg ? sel_fwd[23:0] : sel_read[23:0];
// For W: the PSNs from p + 1 to nxt, and rtx's distance from p + 1, each
// from its candidate word (no carry chain at W).
wire [23:0] left_read = rq_nxt(b_entry_reg) - b_psn_next_reg;
wire [23:0] left_fwd = rq_nxt(b_fwd_word_reg) - b_psn_next_reg;
wire [23:0] since_read = rq_rtx(b_entry_reg) - b_psn_next_reg;
wire [23:0] since_fwd = rq_rtx(b_fwd_word_reg) - b_psn_next_reg;
wire        in_flight = dec[DEC_IN_FLIGHT];
wire        at_una = dec[DEC_AT_UNA];
wire        tx_new = dec[DEC_TX_NEW];
wire        tx_wraps = dec[DEC_NEXT_AT_UNA];
wire        ack_empties = dec[DEC_NEXT_AT_NXT];
// An ACK or NAK answers a packet in flight; a QP in error takes neither.
wire        answer = !b_scan_reg && !b_tx && ent_valid && !ent_error && in_flight;
wire        take_ack = answer && b_ack_reg;
wire        take_nak = answer && b_nak_psn_reg;
// A scan event finds the QP's timer run out (armed: valid and no error).
wire        take_timeout = b_scan_reg && ent_armed && b_due_come_reg;
// A go-back, by a NAK or the timer, is one more retry, counted from 0
// again when a NAK acknowledges packets (its PSN past una); with none
// left, retry exhausted.
wire        go_back = take_nak || take_timeout;
wire        from_una = b_scan_reg || at_una;
wire        retries_used = ent_retries == cfg_retry_cnt;
wire        exhausted = from_una ? retries_used : cfg_retry_cnt == 3'd0;
wire [2:0]  back_retries = from_una ? (retries_used ? ent_retries : ent_retries + 3'd1)
                           : (cfg_retry_cnt == 3'd0 ? 3'd0 : 3'd1);
// A sent request: the QP's first starts it (una = p); one beyond nxt moves
// nxt on. A QP in error keeps its word.
wire        take_tx = !b_scan_reg && b_tx && !ent_error;
// Rule 9: a sent request in flight that is not new is a resend: what is
// sent from now on (from nxt) leaves after it.
wire        resend = take_tx && ent_valid && !tx_new && in_flight;
// The timer: started by the first request of a window (none running), by an
// ACK that leaves packets in flight and by a go-back; stopped by an ACK of
// all, a request that brings nxt round to una, and an error.
wire        tx_starts = take_tx && (!ent_valid || (tx_new && !tx_wraps && !ent_armed));
wire        errs = go_back && exhausted;
wire        start = timer_on && !errs && (tx_starts || (take_ack && !ack_empties) || go_back);
wire        armed = timer_on && !errs && (take_tx ? !ent_valid || (tx_new ? !tx_wraps : ent_armed)
                                        : take_ack ? !ack_empties : go_back || ent_armed);
// Where a go-back starts: a NAK's PSN, or una (the timer's).
wire [23:0] retx_psn = b_scan_reg ? ent_una : b_psn;
// B's word after its event, field by field: an ACK acknowledges its PSN
// (progress: the retries start again) and brings rtx up to una when it is
// behind, a NAK what is before it. Otherwise the word is unchanged.
wire [RQ_ENTRY_WIDTH-1:0] b_word = rq_entry(
    ent_valid || take_tx,
    ent_error || errs,
    armed,
    take_ack ? 3'd0 : go_back ? back_retries : ent_retries,
    (take_tx && !ent_valid) || take_nak ? b_psn : take_ack ? b_psn_next_reg : ent_una,
    take_tx && (!ent_valid || tx_new) ? b_psn_next_reg : ent_nxt,
    take_tx && !ent_valid ? b_psn : go_back ? retx_psn : take_sel ? sel_end
        : take_ack && dec[DEC_RTX_BEHIND] ? b_psn_next_reg : ent_rtx,
    resend || (ent_marked && !(take_tx && !ent_valid) && !go_back && !(take_sel && sel_from_una)),
    resend ? ent_nxt : ent_mark);
// A go-back's retransmit request: from its PSN (a NAK's, or una) to
// nxt - 1, all of it, registered at W and pushed from X.
wire        retx_decided = b_valid_reg && go_back;
wire [23:0] retx_count = ent_nxt - retx_psn;
wire [1:0]  retx_cause = errs ? CAUSE_RETRY_EXHAUSTED : b_scan_reg ? CAUSE_TIMEOUT : CAUSE_NAK;
reg         w_back_reg = 1'b0;
reg  [23:0] w_back_psn_reg;
reg  [23:0] w_back_count_reg;
reg  [1:0]  w_back_cause_reg;
reg  [63:0] w_time_reg;
// A selective request (rule 8) is worked out at W from B's registers: the
// first PSN not yet asked for (p + 1, or rtx when it is not behind), the
// span's count, and the mask of the missing ones in it from there; when
// rtx is 64 or more past p + 1, a range from rtx to the span's end.
reg         w_sel_reg = 1'b0;
reg  [23:0] w_sel_una_reg;
reg  [23:0] w_sel_rtx_reg;
reg         w_sel_behind_reg;
reg         w_span_to_nxt_reg;
reg  [23:0] w_left_reg;
reg  [23:0] w_since_reg;
reg  [6:0]  w_span_l_reg;
reg  [63:0] w_missing_reg;
wire [23:0] w_from = w_sel_behind_reg ? 24'd0 : w_since_reg;
wire [23:0] w_span = w_span_to_nxt_reg ? w_left_reg : {17'd0, w_span_l_reg};
wire        w_far = |w_from[23:6];
wire [63:0] w_in_span = |w_span[23:6] ? {64{1'b1}} : ~({64{1'b1}} << w_span[5:0]);
wire [63:0] w_mask = w_missing_reg & w_in_span & ({64{1'b1}} << w_from[5:0]);
wire        w_past_mask = |w_span[23:7] || (w_span[6] && |w_span[5:0]);
wire        w_sel_push = w_sel_reg && (w_far || |w_mask || w_past_mask);
// X: the request of W's event, pushed into the output buffer from
// registers.
reg         x_push_reg = 1'b0;
reg  [OUT_WIDTH-1:0] x_retx_reg;
// The events that may still push a request: NAKs, selective ACKs and scan
// events in R, B, W and X.
wire        r_may_push = r_valid_reg && (r_scan_reg || r_sack_reg || (!r_tx && r_syndrome == SYNDROME_NAK_PSN));
wire        b_may_push = b_valid_reg && (b_scan_reg || b_sack_reg || (!b_tx && b_nak_psn_reg));
wire        w_may_push = w_back_reg || w_sel_reg;
wire        fwd_from_b = b_valid_reg && b_qp == r_qp;
wire        fwd_from_w = w_valid_reg && w_qp_reg == r_qp;

// W: a started timer is due 2^(retx_timeout + retries) units on, the
// retries as W's word has them.
wire [5:0]  w_shift = {1'b0, cfg_retx_timeout} + {3'd0, rq_retries(w_word_reg)};
wire [31:0] w_step = 32'd1 << w_shift;

wire [OUT_CW-1:0] out_count;
// Room for a request from each NAK or scan event in R, B and W and from the
// events taken this cycle and the one before, counted a cycle ahead
// (registers only): the count and the NAKs of the cycle before, and two
// more.
reg               out_room_reg = 1'b0;

// The head goes on when it needs no scan: into A when it is the requester's
// input and the output has room, nowhere when it is a tick. I moves to H
// when H is free or going.
wire   pipe_empty = !r_valid_reg && !b_valid_reg && !w_valid_reg && !d_valid_reg;
wire   h_go = state_reg == ST_RUN && h_valid_reg && !h_scan_reg && (out_room_reg || !h_input_reg);
wire   i_move = state_reg == ST_RUN && i_valid_reg && (!h_valid_reg || h_go);
wire   a_take = h_go && h_input_reg;
wire   a_scan = state_reg == ST_SCAN && out_room_reg;
// A due has come when (unit - due) mod 2^32 is below 2^31 (bit 31 clear).
/* verilator lint_off UNUSEDSIGNAL */
wire [31:0] r_since_due = r_unit - r_due_reg;
/* verilator lint_on UNUSEDSIGNAL */
wire   scan_last = {{(32-QP_INDEX_WIDTH){1'b0}}, scan_qp_reg} == QP_COUNT - 1;
wire [QP_INDEX_WIDTH-1:0] a_qp = state_reg == ST_SCAN ? scan_qp_reg : h_qp_reg;
// The dues are read a cycle ahead of the words: the QP A takes next, so
// that R compares a register with the unit, not the block RAM's late data.
// (Through DRAIN, QP 0: the last cycle's read has no write beside it.)
wire [QP_INDEX_WIDTH-1:0] due_rd_addr = a_scan && !scan_last ? scan_qp_next_reg : scan_qp_reg;

qp_rmw_pipe #(
    .WIDTH(RQ_ENTRY_WIDTH),
    .DEPTH(QP_COUNT),
    .ADDR_WIDTH(QP_INDEX_WIDTH)
) state_inst (
    .clk(clk),
    // A reads the head's or the scan's QP every cycle: R, which never
    // waits, uses the word only after an event was taken.
    .rd_en(1'b1),
    .rd_addr(a_qp),
    .entry(entry),
    // W's word being written, if of R's QP (B's, newer, is taken at B).
    .newer_valid(fwd_from_w),
    .newer(w_word_reg),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data)
);

// The dues: used by scan events alone (a scan runs on a drained pipeline,
// so D's writes are in); D writes a started timer's.
qp_state_ram #(
    .WIDTH(32),
    .DEPTH(QP_COUNT),
    .ADDR_WIDTH(QP_INDEX_WIDTH)
) due_inst (
    .clk(clk),
    .rd_en(1'b1),
    .rd_addr(due_rd_addr),
    .rd_data(due_rd_data),
    .wr_en(due_wr_en),
    .wr_addr(due_wr_addr),
    .wr_data(due_wr_data)
);

stream_fifo #(
    .WIDTH(OUT_WIDTH),
    .DEPTH(OUT_DEPTH),
    .CW(OUT_CW)
) out_fifo_inst (
    .clk(clk),
    .rst(rst),
    .s_valid(x_push_reg),
    .s_data(x_retx_reg),
    .m_valid(m_retx_valid),
    .m_ready(m_retx_ready),
    .m_data({m_retx_time, m_retx_qp, m_retx_psn, m_retx_count, m_retx_cause, m_retx_mask}),
    .count(out_count)
);

// I takes an event when it is empty or moving on: registers only.
assign s_evt_ready = !init_reg && (!i_valid_reg || i_move);
assign busy = init_reg || i_valid_reg || h_valid_reg || state_reg != ST_RUN || !pipe_empty || x_push_reg
              || out_count != {OUT_CW{1'b0}};
wire   accept = s_evt_valid && s_evt_ready;

// The RAMs' writes: the sweep, W's write-back, D's due.
always @* begin
    init_next = init_reg;
    init_addr_next = init_addr_reg;
    wr_en = 1'b0;
    wr_addr = w_qp_reg;
    wr_data = w_word_reg;
    due_wr_en = d_valid_reg && d_start_reg;
    due_wr_addr = d_qp_reg;
    due_wr_data = d_due_reg;

    if (init_reg) begin
        wr_en = 1'b1;
        wr_addr = init_addr_reg;
        wr_data = {RQ_ENTRY_WIDTH{1'b0}};
        due_wr_en = 1'b1;
        due_wr_addr = init_addr_reg;
        due_wr_data = 32'd0;
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

    // I: the event in, and the bound of a timer it may start. Its input
    // counts only with ack_mode rocev2 and a QP of the table.
    if (accept) begin
        i_valid_reg <= 1'b1;
    end else if (i_move) begin
        i_valid_reg <= 1'b0;
    end
    if (!i_valid_reg || i_move) begin
        i_time_reg <= s_evt_time;
        i_input_reg <= s_evt_input && ack_on && {8'd0, s_evt_qp} < QP_COUNT;
        i_qp_reg <= s_evt_qp[QP_INDEX_WIDTH-1:0];
        i_tx_reg <= s_evt_tx;
        i_psn_reg <= s_evt_psn;
        i_syndrome_reg <= s_evt_syndrome;
        i_sack_reg <= s_evt_sack_valid && sel_on;
        i_beyond_reg <= s_evt_sack_beyond;
        i_bitmap_reg <= s_evt_sack_bitmap;
        i_bound_reg <= s_evt_time[63:UNIT_SHIFT] + (52'd1 << cfg_retx_timeout);
    end

    // H: the head; on its move from I the bound comes down to the event's
    // and the scan is decided, both from registers.
    if (i_move) begin
        h_valid_reg <= 1'b1;
        h_time_reg <= i_time_reg;
        h_input_reg <= i_input_reg;
        h_qp_reg <= i_qp_reg;
        h_tx_reg <= i_tx_reg;
        h_psn_reg <= i_psn_reg;
        h_syndrome_reg <= i_syndrome_reg;
        h_sack_reg <= i_sack_reg;
        h_beyond_reg <= i_beyond_reg;
        h_bitmap_reg <= i_bitmap_reg[62:0];
        for (k = 0; k < 8; k = k + 1) begin
            h_byte_any_reg[k] <= |i_bitmap_reg[k*8 +: 8];
            h_byte_top_reg[k*3 +: 3] <= top8(i_bitmap_reg[k*8 +: 8]);
        end
        h_bound_reg <= i_bound_reg;
        h_scan_reg <= ack_on && timer_on && i_unit >= quiet_until_reg;
        if (i_lowers && i_bound_reg < quiet_until_reg) begin
            quiet_until_reg <= i_bound_reg;
        end
    end else if (h_go) begin
        h_valid_reg <= 1'b0;
    end

    // The scan (see the header).
    case (state_reg)
        ST_RUN: begin
            if (h_valid_reg && h_scan_reg) begin
                state_reg <= ST_DRAIN;
                scan_qp_reg <= 0;
                scan_qp_next_reg <= 1;
            end
        end
        ST_DRAIN: begin
            if (pipe_empty) begin
                state_reg <= ST_SCAN;
                near_valid_reg <= 1'b0;
            end
        end
        ST_SCAN: begin
            if (a_scan) begin
                if (scan_last) begin
                    state_reg <= ST_FINISH;
                end else begin
                    scan_qp_reg <= scan_qp_next_reg;
                    scan_qp_next_reg <= scan_qp_next_reg + 1;
                end
            end
        end
        ST_FINISH: begin
            if (pipe_empty) begin
                state_reg <= ST_SETTLE;
                settle_bound_reg <= near_valid_reg ? h_time_reg[63:UNIT_SHIFT] + {20'd0, near_reg} : QUIET_NONE;
            end
        end
        default: begin
            // The head's own bound, if nearer (the head lowered the bound
            // before the scan, which replaces it).
            state_reg <= ST_RUN;
            h_scan_reg <= 1'b0;
            quiet_until_reg <= h_input_reg && timer_on && h_bound_reg < settle_bound_reg
                               ? h_bound_reg : settle_bound_reg;
        end
    endcase

    // R takes the head or a scan event; B takes R's with its word (W's
    // being written, if of the same QP) and B's updated word beside it; W
    // takes B's; D takes W's due.
    r_valid_reg <= a_take || a_scan;
    r_scan_reg <= a_scan;
    // R never holds, so its event register loads every cycle (r_valid_reg
    // says whether it holds one): its enables wait for no handshake.
    r_evt_reg <= {h_time_reg, a_qp, h_tx_reg, h_psn_reg, h_syndrome_reg};
    r_sack_reg <= !a_scan && h_sack_reg;
    r_beyond_reg <= h_beyond_reg;
    r_bitmap_reg <= h_bitmap_reg;
    r_span_reg <= span_of_bytes(h_byte_any_reg, h_byte_top_reg);
    b_valid_reg <= r_valid_reg;
    b_scan_reg <= r_valid_reg && r_scan_reg;
    b_evt_reg <= r_evt_reg;
    b_psn_next_reg <= r_psn + 24'd1;
    b_ack_reg <= r_syndrome[7:5] == 3'd0;
    b_nak_psn_reg <= r_syndrome == SYNDROME_NAK_PSN;
    b_sack_reg <= r_sack_reg && r_syndrome[7:5] == 3'd0;
    b_beyond_reg <= r_beyond_reg;
    b_end_span_reg <= r_psn + 24'd1 + {17'd0, r_span_reg};
    b_span_reg <= r_span_reg;
    b_span_zero_reg <= r_span_reg == 7'd0;
    b_missing_reg <= ~{r_bitmap_reg, 1'b0};
    r_due_reg <= due_rd_data;
    b_due_reg <= r_due_reg;
    b_due_come_reg <= !r_since_due[31];
    b_entry_reg <= entry;
    b_fwd_reg <= fwd_from_b;
    b_fwd_word_reg <= b_word;
    w_valid_reg <= b_valid_reg;
    w_scan_reg <= b_valid_reg && b_scan_reg;
    w_back_reg <= retx_decided;
    w_back_psn_reg <= retx_psn;
    w_back_count_reg <= retx_count;
    w_back_cause_reg <= retx_cause;
    w_time_reg <= b_time;
    w_sel_reg <= b_valid_reg && take_sel;
    w_sel_una_reg <= b_psn_next_reg;
    w_sel_rtx_reg <= ent_rtx;
    w_sel_behind_reg <= sel_from_una;
    w_span_to_nxt_reg <= span_to_nxt;
    w_left_reg <= b_fwd_reg ? left_fwd : left_read;
    w_since_reg <= b_fwd_reg ? since_fwd : since_read;
    w_span_l_reg <= b_span_reg;
    w_missing_reg <= b_missing_reg;
    x_push_reg <= w_back_reg || w_sel_push;
    x_retx_reg <= w_back_reg
        ? {w_time_reg, {{(24-QP_INDEX_WIDTH){1'b0}}, w_qp_reg}, w_back_psn_reg, w_back_count_reg, w_back_cause_reg,
           {64{1'b1}}}
        : {w_time_reg, {{(24-QP_INDEX_WIDTH){1'b0}}, w_qp_reg}, w_far ? w_sel_rtx_reg : w_sel_una_reg,
           w_far ? w_span - w_from : w_span, CAUSE_SELECTIVE, w_far ? {64{1'b1}} : w_mask};
    w_qp_reg <= b_qp;
    w_word_reg <= b_word;
    w_start_reg <= b_valid_reg && start;
    w_unit_reg <= b_time[UNIT_SHIFT +: 32];
    w_due_reg <= b_due_reg;
    d_valid_reg <= w_valid_reg;
    d_start_reg <= w_start_reg;
    d_qp_reg <= w_qp_reg;
    d_due_reg <= w_unit_reg + w_step;
    // A scan event's distance to its QP's due: the new one's, or the one
    // read (not come, so 1 .. 2^31).
    d_left_valid_reg <= w_valid_reg && w_scan_reg && rq_armed(w_word_reg);
    d_left_reg <= w_start_reg ? w_step : w_due_reg - w_unit_reg;
    if (d_valid_reg && d_left_valid_reg && (!near_valid_reg || d_left_reg < near_reg)) begin
        near_valid_reg <= 1'b1;
        near_reg <= d_left_reg;
    end
    // Every NAK or scan event in R, B and W may push a request, and so may
    // the events taken this cycle and the one before (this register is a
    // cycle late): see the header.
    out_room_reg <= {2'b0, out_count} + {{(OUT_CW+1){1'b0}}, r_may_push} + {{(OUT_CW+1){1'b0}}, b_may_push}
        + {{(OUT_CW+1){1'b0}}, w_may_push} + {{(OUT_CW+1){1'b0}}, x_push_reg} <= OUT_DEPTH + 1 - 2;

    if (rst) begin
        init_reg <= 1'b1;
        init_addr_reg <= 0;
        state_reg <= ST_RUN;
        quiet_until_reg <= QUIET_NONE;
        i_valid_reg <= 1'b0;
        h_valid_reg <= 1'b0;
        r_valid_reg <= 1'b0;
        r_scan_reg <= 1'b0;
        b_valid_reg <= 1'b0;
        b_scan_reg <= 1'b0;
        b_fwd_reg <= 1'b0;
        w_valid_reg <= 1'b0;
        w_scan_reg <= 1'b0;
        w_back_reg <= 1'b0;
        w_sel_reg <= 1'b0;
        x_push_reg <= 1'b0;
        w_start_reg <= 1'b0;
        d_valid_reg <= 1'b0;
        d_start_reg <= 1'b0;
        d_left_valid_reg <= 1'b0;
        near_valid_reg <= 1'b0;
        out_room_reg <= 1'b0;
    end
end

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
always @(posedge clk) begin
    if (!rst) begin
        // The credits: a request is pushed only with room for it, whatever
        // the output does this cycle.
        assert (!(x_push_reg && {{(32-OUT_CW){1'b0}}, out_count} > OUT_DEPTH))
        else metaroce_assertion_failed("roce_requester: a retransmit request with no room in the output buffer");
        // ... and every NAK in flight has room for its request.
        assert (!(!init_reg && {{(32-OUT_CW){1'b0}}, out_count} + {31'd0, r_may_push} + {31'd0, b_may_push}
                  + {31'd0, w_may_push} + {31'd0, x_push_reg} > OUT_DEPTH + 1))
        else metaroce_assertion_failed("roce_requester: more NAKs in flight than the output buffer has room for");
        // No event is taken during the sweep.
        assert (!(init_reg && (r_valid_reg || b_valid_reg || w_valid_reg)))
        else metaroce_assertion_failed("roce_requester: an event in the pipeline during the RAM sweep");
        // A retransmit request asks for at least the NAK's own packet.
        assert (!(retx_decided && retx_count == 24'd0))
        else metaroce_assertion_failed("roce_requester: a retransmit request of no packets");
        assert (!(w_sel_push && (w_far ? w_span == w_from : w_span == 24'd0)))
        else metaroce_assertion_failed("roce_requester: a selective request of no packets");
        // A go-back and a selective request never come from one event.
        assert (!(w_back_reg && w_sel_reg))
        else metaroce_assertion_failed("roce_requester: a go-back and a selective request from one event");
        // The timer runs only for a window of a QP not in error.
        assert (!(b_valid_reg && ent_armed && (!ent_valid || ent_error || !timer_on)))
        else metaroce_assertion_failed("roce_requester: a timer running for a QP with no window or in error");
        // A scan runs on a drained pipeline, with the head waiting.
        assert (!(state_reg == ST_SCAN && !h_valid_reg))
        else metaroce_assertion_failed("roce_requester: a scan with no head event");
        // The retries never pass the limit (cfg is held constant).
        assert (!(b_valid_reg && ent_valid && ent_retries > cfg_retry_cnt))
        else metaroce_assertion_failed("roce_requester: more go-backs counted than retry_cnt allows");
    end
end
`endif

endmodule

`resetall

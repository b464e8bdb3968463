// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "metaroce_cfg.vh"
`include "reply_addr.vh"

/*
 * RC responder (SPEC.md §6.10): received RC SEND and WRITE requests in,
 * ACKs and NAKs out as whole frames. With cfg ack_mode rocev2 by
 * go-back-N (rxe_resp.c's rules): per QP the expected PSN, the MSN,
 * whether a NAK was sent since the last in-order packet and the in-order
 * packets since the last ACK. With metaroce by selective ACKs: packets
 * up to SACK_WINDOW PSNs past the expected one are kept in a per-QP bitmap
 * that every ACK carries in its extension (12 bytes more, from the same
 * frame builder), coalesced by count and by time. With ack_mode off every
 * event is taken and dropped.
 *
 * Pipelined as the notification point (cnp_notify.v): an event a cycle.
 * Stage A takes the event and reads its QP's RAM word; stage R registers
 * the word (forwarded from a write of the same QP in the read's cycle or
 * from W's word; B's updated word is registered beside it and selected at
 * B, so the decision that makes it meets no multiplexer of the RAM's
 * path); stage B decides and updates the word, and stage W writes it back
 * from a register. With selective ACKs the decision takes two stages: B
 * classifies the packet against the word (its bit in the bitmap, the run
 * of held PSNs after the expected one, whether the oldest unacknowledged
 * packet waited long enough) and C updates the word from those registers;
 * an event is then taken every other cycle, so that C's word reaches the
 * next event at B through the register that carries B's in go-back-N
 * mode. B (C) never waits: an ACK or NAK it decides on is queued
 * (REQ_DEPTH requests) for the frame builder (roce_reply_frame.v), which
 * runs beside the pipeline: the frame with the ICRC's partial sums and
 * the IPv4 header's sum of words, then the ICRC and IPv4 checksum (3
 * cycles: the short form's ICRC takes one more), and ceil(len /
 * KEEP_WIDTH) output beats. The input is held,
 * from registers alone, while the queue has no room for a request from
 * each event in R, B and C and from one more.
 * Per-QP state is one RAM word per QP, cleared by a sweep after reset
 * (QP_COUNT cycles with s_evt_ready low).
 *
 * | port                  | width      | meaning                                       |
 * |-----------------------|------------|-----------------------------------------------|
 * | cfg                   | CFG_WIDTH  | registers (ack_mode, ack_coalesce_pkts,       |
 * |                       |            | ack_coalesce_ns, ack_dscp, ack_prio), held    |
 * |                       |            | constant                                      |
 * | s_qpctx_local/remote  | 24/24      | QP context load (local QP -> remote QP)       |
 * | s_qpctx_psn_valid/psn | 1/24       | ... and its first expected PSN (rq_psn)       |
 * | s_evt_time            | 64         | tick (ns) of the packet                       |
 * | s_evt_qp              | 24         | local QP (BTH DestQP)                         |
 * | s_evt_reply_addr      | 382        | the packet's addresses the ACK answers with   |
 * |                       |            | (rtl/reply_addr.vh), carried whole to the     |
 * |                       |            | builder                                       |
 * | s_evt_psn             | 24         | BTH PSN                                       |
 * | s_evt_ack_req         | 1          | BTH AckReq                                    |
 * | s_evt_msg_end         | 1          | last or only packet of a message              |
 * | m_axis_t*             | DATA_WIDTH | ACK/NAK frames (no FCS)                       |
 * | m_axis_tuser          | 64         | emit tick (the packet's), on every beat       |
 * | busy                  | 1          | an event or frame is still in the block       |
 *
 * Only received-data events of RC requests (opcodes 0x00-0x0B, 0x16,
 * 0x17) are presented here (roce_cn.v decides).
 *
 * RAM word (RS_ENTRY_WIDTH bits): remote_valid, remote_qp 24, psn_valid,
 * epsn 24, msn 24, nak_sent, unacked 8, and for metaroce the bitmap 64
 * (bit i: PSN epsn + 1 + i received) and first_unacked 32 (the tick, mod
 * 2^32, of the oldest packet not yet acknowledged).
 */
module roce_responder #(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH/8,
    parameter QP_COUNT = 1024,
    parameter [15:0] ROCE_UDP_PORT = 16'd4791
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [`CFG_WIDTH-1:0]  cfg,

    input  wire                   s_qpctx_valid,
    output wire                   s_qpctx_ready,
    input  wire [23:0]            s_qpctx_local,
    input  wire [23:0]            s_qpctx_remote,
    input  wire                   s_qpctx_psn_valid,
    input  wire [23:0]            s_qpctx_psn,

    input  wire                   s_evt_valid,
    output wire                   s_evt_ready,
    input  wire [63:0]            s_evt_time,
    input  wire [23:0]            s_evt_qp,
    input  wire [`REPLY_ADDR_WIDTH-1:0] s_evt_reply_addr,
    input  wire [23:0]            s_evt_psn,
    input  wire                   s_evt_ack_req,
    input  wire                   s_evt_msg_end,

    output wire [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire [63:0]            m_axis_tuser,

    output wire                   busy
);

`include "roce_bytes.vh"
// ACK_MODE_*, OPCODE_RC_ACK, SYNDROME_* (SPEC.md §6.10: the ACK's credit
// count 31 is "invalid", rxe's AETH_ACK_UNLIMITED).
`include "metaroce_defs.vh"

// The registers this module reads: slices of the cfg bus (rtl/metaroce_cfg.vh).
wire [`CFG_ACK_MODE_W-1:0] cfg_ack_mode = cfg[`CFG_ACK_MODE];
wire [`CFG_ACK_COALESCE_PKTS_W-1:0] cfg_ack_coalesce = cfg[`CFG_ACK_COALESCE_PKTS];
wire [`CFG_ACK_COALESCE_NS_W-1:0] cfg_ack_coalesce_ns = cfg[`CFG_ACK_COALESCE_NS];
wire [`CFG_ACK_DSCP_W-1:0] cfg_ack_dscp = cfg[`CFG_ACK_DSCP];
wire [`CFG_ACK_PCP_W-1:0] cfg_ack_pcp = cfg[`CFG_ACK_PCP];
// The other modules' registers.
wire unused_cfg = &{1'b0, cfg};

localparam QP_INDEX_WIDTH = QP_COUNT > 1 ? $clog2(QP_COUNT) : 1;
localparam RS_ENTRY_WIDTH = 1 + 24 + 1 + 24 + 24 + 1 + 8 + SACK_WINDOW + 32;
// Where B's tested fields lie in the word (rs_entry's order), for its tests
// of both candidate words (order_tests, selective_tests).
localparam RS_FIRST_UNACKED_LSB = 0;
localparam RS_SACK_LSB = 32;
localparam RS_UNACKED_LSB = RS_SACK_LSB + SACK_WINDOW;
localparam RS_EPSN_LSB = RS_UNACKED_LSB + 8 + 1 + 24;
localparam RS_PSN_VALID_LSB = RS_EPSN_LSB + 24;
// The AETH after the BTH; a selective ACK's extension after it.
localparam AETH_BYTES = 4;
localparam SACK_BYTES = AETH_BYTES + 12;

// Illegal parameters stop elaboration: the instance of a module that does
// not exist names the rule (Icarus Verilog 11 has no elaboration $error).
// The frame builder (roce_reply_frame.v) checks DATA_WIDTH.
generate
    if (QP_COUNT < 1 || QP_COUNT > (1 << 24)) begin : g_bad_qp_count
        roce_responder_QP_COUNT_must_be_1_to_2_pow_24 bad_qp_count();
    end
endgenerate

reg init_reg = 1'b1, init_next;
reg [QP_INDEX_WIDTH-1:0] init_addr_reg = 0, init_addr_next;

// The event, packed at the input and unpacked at stage B: R holds it while
// its QP's RAM word is read, B while the word is used.
localparam EVT_WIDTH = 64 + QP_INDEX_WIDTH + `REPLY_ADDR_WIDTH + 24 + 1 + 1;
wire [EVT_WIDTH-1:0] s_evt_word = {s_evt_time, s_evt_qp[QP_INDEX_WIDTH-1:0], s_evt_reply_addr, s_evt_psn,
    s_evt_ack_req, s_evt_msg_end};
reg                 r_valid_reg = 1'b0;
// R holds an event and selective ACKs are on (the input waits a cycle).
reg                 r_selective_reg = 1'b0;
reg [EVT_WIDTH-1:0] r_evt_reg;
wire [QP_INDEX_WIDTH-1:0] r_qp = r_evt_reg[EVT_WIDTH-65 -: QP_INDEX_WIDTH];
wire [23:0]               r_psn = r_evt_reg[25:2];
reg                 b_valid_reg = 1'b0;
reg [EVT_WIDTH-1:0] b_evt_reg;
// The event's PSN + 1, from R: the expected PSN after it if in order.
reg [23:0]          b_psn_next_reg;
wire [63:0]  b_time;
wire [QP_INDEX_WIDTH-1:0] b_qp;
wire [`REPLY_ADDR_WIDTH-1:0] b_reply_addr;
wire [23:0]  b_psn;
wire         b_ack_req;
wire         b_msg_end;
assign {b_time, b_qp, b_reply_addr, b_psn, b_ack_req, b_msg_end} = b_evt_reg;
// The RAM word, packed here and unpacked below, nowhere else.
function [RS_ENTRY_WIDTH-1:0] rs_entry(
    input        remote_valid,
    input [23:0] remote_qp,
    input        psn_valid,
    input [23:0] epsn,
    input [23:0] msn,
    input        nak_sent,
    input [7:0]  unacked,
    input [SACK_WINDOW-1:0] sack,
    input [31:0] first_unacked
);
    rs_entry = {remote_valid, remote_qp, psn_valid, epsn, msn, nak_sent, unacked, sack, first_unacked};
endfunction

// The bits below the lowest clear one: how far an in-order packet moves
// epsn past itself (selective ACKs). Counted per byte (each byte's run and
// whether it is full, then the first byte not full) in a few LUT levels;
// a 64-bit carry chain and its encoder did not fit B's cycle.
function [6:0] trailing_ones(input [SACK_WINDOW-1:0] v);
    reg [SACK_WINDOW/8-1:0]   byte_full;
    reg [SACK_WINDOW/8*3-1:0] byte_run;
    reg                       all_below;
    integer g, i;
    begin
        byte_run = 0;
        for (g = 0; g < SACK_WINDOW / 8; g = g + 1) begin
            byte_full[g] = &v[8*g +: 8];
            all_below = 1'b1;
            for (i = 0; i < 8; i = i + 1) begin
                byte_run[3*g +: 3] = byte_run[3*g +: 3] | (all_below && !v[8*g + i] ? i[2:0] : 3'd0);
                all_below = all_below && v[8*g + i];
            end
        end
        trailing_ones = {&byte_full, 6'd0};
        all_below = 1'b1;
        for (g = 0; g < SACK_WINDOW / 8; g = g + 1) begin
            trailing_ones[5:0] = trailing_ones[5:0] | (all_below && !byte_full[g] ? {g[2:0], byte_run[3*g +: 3]} : 6'd0);
            all_below = all_below && byte_full[g];
        end
    end
endfunction

// B's tests of a packet of PSN `psn` against one word's bitmap and epsn
// (their low 6 bits): {the packet's bit is held, the PSN before it is
// held, trailing_ones of the bitmap}, with d = psn - epsn mod 64 (in_window
// decides whether the bits mean anything). Both held tests index by d
// itself, so no subtraction stands before their 64-to-1 selects: bit
// d - 1 is the bitmap rotated by one, and bit d - 2 (for d = 1 epsn, never
// held) the bitmap rotated by two with its bit for d = 1 cleared. B tests both candidate words (as read, and C's
// forwarded) and then picks one result: the pick's select, which fans out
// to the whole word, then stands after the tests instead of before them.
function [8:0] selective_tests(input [SACK_WINDOW-1:0] sack, input [5:0] epsn, input [5:0] psn);
    reg [5:0]             d;
    reg [SACK_WINDOW-1:0] at_d;
    reg [SACK_WINDOW-1:0] before_d;
    begin
        d = psn - epsn;
        at_d = {sack[SACK_WINDOW-2:0], sack[SACK_WINDOW-1]};
        before_d = {sack[SACK_WINDOW-3:0], 1'b0, sack[SACK_WINDOW-2]};
        selective_tests = {at_d[d], before_d[d], trailing_ones(sack)};
    end
endfunction

// B's tests of a packet against one word that need no bitmap: {in order,
// psn - epsn, late: the oldest packet not yet acknowledged came
// `coalesce_ns` ago (with `by_time`)}. Run on both candidate words, like
// selective_tests, so the pick's select stands after the compares.
function [25:0] order_tests(input [RS_ENTRY_WIDTH-1:0] word, input [23:0] psn, input [31:0] time_lo,
                            input by_time, input [31:0] coalesce_ns);
    reg [31:0] since_first;
    begin
        since_first = time_lo - word[RS_FIRST_UNACKED_LSB +: 32];
        order_tests = {!word[RS_PSN_VALID_LSB] || psn == word[RS_EPSN_LSB +: 24], psn - word[RS_EPSN_LSB +: 24],
                       by_time && word[RS_UNACKED_LSB +: 8] != 8'd0 && since_first >= coalesce_ns};
    end
endfunction

// Per-QP state (qp_rmw_pipe.v): the input reads, R sees the word on
// `entry` (forwarded from the write of the read's cycle, or from W's
// word) and registers it; B's (C's) updated word is registered beside it
// when its event is of R's QP, and B takes that one (b_fwd_reg).
wire [RS_ENTRY_WIDTH-1:0] entry;
reg  [RS_ENTRY_WIDTH-1:0] b_entry_reg;
reg                       b_fwd_reg = 1'b0;
reg  [RS_ENTRY_WIDTH-1:0] b_fwd_word_reg;
// W: B's (C's) event's updated word, written back from a register.
reg                       w_valid_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0]  w_qp_reg;
reg  [RS_ENTRY_WIDTH-1:0] w_word_reg;
reg                       wr_en;
reg [QP_INDEX_WIDTH-1:0]  wr_addr;
reg [RS_ENTRY_WIDTH-1:0]  wr_data;
// ack_coalesce_pkts - 1 (signed: -1 when 0), registered from the constant
// cfg: an in-order packet is due an ACK when its QP's unacked count before
// it reaches this.
reg signed [8:0]          coalesce_limit_reg = 9'sd0;
// Registered from the constant cfg: ack_mode is metaroce; ack_coalesce_ns
// is not 0.
reg                       selective_reg = 1'b0;
reg                       coalesce_time_reg = 1'b0;

// B's word: as read, or B's (C's) own last word when its event was of this
// QP.
wire        ent_remote_valid;
wire [23:0] ent_remote_qp;
wire        ent_psn_valid;
wire [23:0] ent_epsn;
wire [23:0] ent_msn;
wire        ent_nak_sent;
wire [7:0]  ent_unacked;
wire [SACK_WINDOW-1:0] ent_sack;
wire [31:0] ent_first_unacked;
assign {ent_remote_valid, ent_remote_qp, ent_psn_valid, ent_epsn, ent_msn, ent_nak_sent, ent_unacked, ent_sack,
        ent_first_unacked} = b_fwd_reg ? b_fwd_word_reg : b_entry_reg;

// ACK/NAK requests from stage B (C with selective ACKs), queued for the
// builder: B and C never wait, and the input is held while the events in R,
// B and C could overfill the queue.
// A request is packed here and unpacked below, nowhere else.
localparam REQ_WIDTH = 64 + `REPLY_ADDR_WIDTH + 24 + 24 + 1 + 24 + SACK_WINDOW + 1;
localparam REQ_DEPTH = 4;
wire [REQ_WIDTH-1:0] req_head;
wire [63:0]  req_time;
wire [`REPLY_ADDR_WIDTH-1:0] req_reply_addr;
wire [23:0]  req_dest_qp;
wire [23:0]  req_psn;
wire         req_nak;
wire [23:0]  req_msn;
wire [SACK_WINDOW-1:0] req_sack;
wire         req_beyond;
assign {req_time, req_reply_addr, req_dest_qp, req_psn, req_nak, req_msn, req_sack, req_beyond} = req_head;
// The frame builder (frame_inst, below) takes the queue's head when idle.
wire         frame_idle;

// Stage B's decision (SPEC.md §6.10 steps 1-6; metaroce: its rules 1-5).
// Without psn_valid the packet's PSN is the expected one (step 2), so the
// packet is in order.
wire [25:0] order_read = order_tests(b_entry_reg, b_psn, b_time[31:0], coalesce_time_reg, cfg_ack_coalesce_ns);
wire [25:0] order_forwarded = order_tests(b_fwd_word_reg, b_psn, b_time[31:0], coalesce_time_reg,
                                          cfg_ack_coalesce_ns);
wire        in_order;
wire [23:0] psn_diff;
// Late: the oldest packet not yet acknowledged came ack_coalesce_ns ago.
wire        late;
assign {in_order, psn_diff, late} = b_fwd_reg ? order_forwarded : order_read;
wire        ahead = !in_order && !psn_diff[23];
wire        duplicate = !in_order && psn_diff[23];
// unacked + 1 >= ack_coalesce_pkts.
wire        coalesce_due = $signed({1'b0, ent_unacked}) >= coalesce_limit_reg;
wire        ack_in_order = b_ack_req || coalesce_due;
// Go-back-N (rocev2).
wire        gbn_send = in_order ? ack_in_order : (ahead ? !ent_nak_sent : 1'b1);
// The AETH PSN: the packet's (in order), the expected one (NAK), the last
// received (duplicate).
wire [23:0] gbn_psn = in_order ? b_psn : (ahead ? ent_epsn : ent_epsn - 24'd1);
wire [7:0]  gbn_unacked = in_order ? (ack_in_order ? 8'd0 : ent_unacked + 8'd1)
                                   : (duplicate ? 8'd0 : ent_unacked);
wire        gbn_nak = in_order ? 1'b0 : (ahead || ent_nak_sent);
// Selective ACKs (metaroce), stage B: the packet is d = psn_diff PSNs
// past epsn; d in 1..SACK_WINDOW is bit d - 1 of the bitmap. The
// classification is registered for C, which updates the word.
wire        in_window = ahead && psn_diff[23:7] == 17'd0 && psn_diff[6:0] <= SACK_WINDOW;
wire [5:0]  window_bit = psn_diff[5:0] - 6'd1;
wire [8:0]  tests_read = selective_tests(b_entry_reg[RS_SACK_LSB +: SACK_WINDOW], b_entry_reg[RS_EPSN_LSB +: 6],
                                        b_psn[5:0]);
wire [8:0]  tests_forwarded = selective_tests(b_fwd_word_reg[RS_SACK_LSB +: SACK_WINDOW],
                                             b_fwd_word_reg[RS_EPSN_LSB +: 6], b_psn[5:0]);
wire        bit_held;
wire        before_held;
// In order: how far epsn moves past the packet (0-64 held PSNs after it).
wire [6:0]  run;
assign {bit_held, before_held, run} = b_fwd_reg ? tests_forwarded : tests_read;
reg                       c_valid_reg = 1'b0;
reg [EVT_WIDTH-1:0]       c_evt_reg;
reg [RS_ENTRY_WIDTH-1:0]  c_entry_reg;
reg                       c_in_order_reg;
reg                       c_ahead_reg;
reg                       c_in_window_reg;
reg                       c_bit_held_reg;
reg                       c_before_held_reg;
// AckReq, the count or the time: a taken packet is acknowledged.
reg                       c_ack_due_reg;
reg [5:0]                 c_window_bit_reg;
// In order: epsn moves past the packet and the run of PSNs the bitmap
// holds next (0-64).
reg [6:0]                 c_run_reg;
reg [23:0]                c_psn_next_reg;
reg [23:0]                c_epsn_minus_1_reg;

// Stage C: the word after the event.
wire [63:0]  c_time;
wire [QP_INDEX_WIDTH-1:0] c_qp;
wire [`REPLY_ADDR_WIDTH-1:0] c_reply_addr;
wire [23:0]  c_psn;
wire         c_ack_req;
wire         c_msg_end;
assign {c_time, c_qp, c_reply_addr, c_psn, c_ack_req, c_msg_end} = c_evt_reg;
wire        c_remote_valid;
wire [23:0] c_remote_qp;
wire        c_psn_valid;
wire [23:0] c_epsn;
wire [23:0] c_msn;
wire        c_nak_sent;
wire [7:0]  c_unacked;
wire [SACK_WINDOW-1:0] c_sack;
wire [31:0] c_first_unacked;
assign {c_remote_valid, c_remote_qp, c_psn_valid, c_epsn, c_msn, c_nak_sent, c_unacked, c_sack, c_first_unacked} =
    c_entry_reg;
// B read psn_valid and AckReq into its classification.
wire        unused_c = &{1'b0, c_psn_valid, c_ack_req};
// B's classes, combined here so that B ends at the bitmap's multiplexers.
wire        c_duplicate = (!c_in_order_reg && !c_ahead_reg) || (c_in_window_reg && c_bit_held_reg);
wire        c_taken = c_in_order_reg || (c_in_window_reg && !c_bit_held_reg);
wire        c_beyond = c_ahead_reg && !c_in_window_reg;
// A taken packet in the window whose PSN before is missing opens a gap.
wire        sel_send = c_duplicate || (c_beyond && !c_nak_sent)
                       || (c_taken && (c_ack_due_reg || (c_in_window_reg && !c_before_held_reg)));
wire [SACK_WINDOW-1:0] sack_after = c_in_order_reg ? (c_sack >> c_run_reg) >> 1
    : (c_taken ? c_sack | ({{(SACK_WINDOW-1){1'b0}}, 1'b1} << c_window_bit_reg) : c_sack);
// epsn after an in-order packet, less one: the last PSN received in order.
wire [23:0] sel_last_in_order = c_psn + {17'd0, c_run_reg};
wire [23:0] sel_epsn = c_in_order_reg ? c_psn_next_reg + {17'd0, c_run_reg} : c_epsn;
wire [7:0]  sel_unacked = sel_send ? 8'd0 : (c_taken ? c_unacked + 8'd1 : c_unacked);
wire        sel_nak = c_in_order_reg ? 1'b0 : (c_beyond || c_nak_sent);
wire [23:0] sel_msn = c_taken && c_msg_end ? c_msn + 24'd1 : c_msn;
wire [31:0] first_unacked_after = c_taken && c_unacked == 8'd0 ? c_time[31:0] : c_first_unacked;
// The selective ACK's PSN: the last received in order.
wire [23:0] sel_psn = c_in_order_reg ? sel_last_in_order : c_epsn_minus_1_reg;
wire        c_send = c_valid_reg && c_remote_valid && sel_send;
// C's word after its event (unchanged without a remote QP).
wire [RS_ENTRY_WIDTH-1:0] c_word = c_remote_valid
    ? rs_entry(1'b1, c_remote_qp, 1'b1, sel_epsn, sel_msn, sel_nak, sel_unacked, sack_after, first_unacked_after)
    : c_entry_reg;

// Go-back-N: with no remote QP, nothing (step 1).
wire        send = b_valid_reg && ent_remote_valid && gbn_send;
wire [23:0] msn_after = in_order && b_msg_end ? ent_msn + 24'd1 : ent_msn;
// B's word after its event in go-back-N mode (unchanged without a remote QP).
wire [RS_ENTRY_WIDTH-1:0] b_word = !ent_remote_valid
    ? rs_entry(1'b0, ent_remote_qp, ent_psn_valid, ent_epsn, ent_msn, ent_nak_sent, ent_unacked, ent_sack,
               ent_first_unacked)
    : rs_entry(1'b1, ent_remote_qp, 1'b1, in_order ? b_psn_next_reg : ent_epsn, msn_after, gbn_nak, gbn_unacked,
               ent_sack, ent_first_unacked);
// The stage whose event's word is written back: B, or C with selective ACKs
// (the constant mode chooses).
wire                      last_valid = selective_reg ? c_valid_reg : b_valid_reg;
wire [QP_INDEX_WIDTH-1:0] last_qp = selective_reg ? c_qp : b_qp;
wire [RS_ENTRY_WIDTH-1:0] last_word = selective_reg ? c_word : b_word;
wire                      fwd_from_b = last_valid && last_qp == r_qp;
// W's word is of R's QP: registered when both were a cycle earlier (B's or
// C's event and the input's QP), so that the select of the whole word
// comes from a register.
reg                       fwd_from_w_reg = 1'b0;

qp_rmw_pipe #(
    .WIDTH(RS_ENTRY_WIDTH),
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
    .newer_valid(fwd_from_w_reg),
    .newer(w_word_reg),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data)
);

wire [REQ_WIDTH-1:0] req_in = selective_reg
    ? {c_time, c_reply_addr, c_remote_qp, sel_psn, 1'b0, sel_msn, sack_after, sel_nak}
    : {b_time, b_reply_addr, ent_remote_qp, gbn_psn, ahead, msn_after, {SACK_WINDOW{1'b0}}, 1'b0};
// The builder takes the queue's head when idle (registers only); the
// input waits for room for a request from each event in R, B and C and
// from one more.
wire        req_pop;
wire        req_room;
wire        req_pending;

reply_req_queue #(
    .WIDTH(REQ_WIDTH),
    .DEPTH(REQ_DEPTH)
) req_queue_inst (
    .clk(clk),
    .rst(rst),
    .s_write(last_valid),
    .s_commit(selective_reg ? c_send : send),
    .s_req(req_in),
    // At most two: one event in two stages with selective ACKs.
    // B and C never both hold one then.
    .s_pending({1'b0, r_valid_reg} + {1'b0, b_valid_reg || c_valid_reg}),
    .s_room(req_room),
    .m_take(frame_idle),
    .m_start(req_pop),
    .m_head(req_head),
    .m_pending(req_pending)
);

assign s_qpctx_ready = !init_reg && !r_valid_reg && !b_valid_reg && !c_valid_reg && !w_valid_reg;
// With selective ACKs an event every other cycle: none while R holds one.
assign s_evt_ready = !init_reg && !s_qpctx_valid && req_room && !r_selective_reg;
assign busy = init_reg || ld_valid_reg || r_valid_reg || b_valid_reg || c_valid_reg || w_valid_reg || req_pending
              || !frame_idle;
wire   accept = s_evt_valid && s_evt_ready;
// Events are taken and dropped with ack_mode off, and for QPs past the table.
wire   accept_in_range = accept && (cfg_ack_mode == ACK_MODE_ROCEV2 || cfg_ack_mode == ACK_MODE_METAROCE)
                         && {8'd0, s_evt_qp} < QP_COUNT;

// The ACK's BTH and AETH (SPEC.md §6.10), in wire order; a selective ACK's
// extension after the AETH: the tag, its version, the flags and the bitmap.
wire [31:0]  aeth = {be24(req_msn), req_nak ? SYNDROME_NAK_PSN : SYNDROME_ACK};
wire [95:0]  bth = {be24(req_psn), 8'h00, be24(req_dest_qp), 8'h00, 16'hFFFF, 8'h00, OPCODE_RC_ACK};
wire [SACK_BYTES*8-1:0] sack_ext = {be64(req_sack), req_beyond ? SACK_FLAG_BEYOND : 8'd0, SACK_VERSION,
    be16(SACK_TAG), aeth};

// One builder for both modes: go-back-N's frames are its short form, the
// AETH alone (the bytes past it are not sent).
roce_reply_frame #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .ROCE_UDP_PORT(ROCE_UDP_PORT),
    .EXT_BYTES(SACK_BYTES),
    .SHORT_EXT_BYTES(AETH_BYTES)
) frame_inst (
    .clk(clk),
    .rst(rst),
    .s_start(req_pop),
    .idle(frame_idle),
    .s_time(req_time),
    .s_reply_addr(req_reply_addr),
    .s_dscp(cfg_ack_dscp),
    .s_pcp(cfg_ack_pcp),
    .s_bth(bth),
    .s_ext_valid(1'b1),
    .s_ext(sack_ext),
    .s_short(!selective_reg),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser)
);

// A context load, written the cycle after it is taken (the RAM's write
// port is driven from registers alone; an event read in that cycle gets
// the word by qp_rmw_pipe's forwarding).
reg                      ld_valid_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0] ld_qp_reg;
reg [23:0]               ld_remote_reg;
reg                      ld_psn_valid_reg;
reg [23:0]               ld_epsn_reg;

// The RAM's writes: the sweep, a context load, W's write-back.
always @* begin
    init_next = init_reg;
    init_addr_next = init_addr_reg;
    wr_en = 1'b0;
    wr_addr = w_qp_reg;
    wr_data = {RS_ENTRY_WIDTH{1'b0}};

    if (init_reg) begin
        wr_en = 1'b1;
        wr_addr = init_addr_reg;
        init_addr_next = init_addr_reg + 1;
        if ({{(32-QP_INDEX_WIDTH){1'b0}}, init_addr_reg} == QP_COUNT - 1) begin
            init_next = 1'b0;
        end
    end else if (ld_valid_reg) begin
        // Loading a context starts the QP afresh (with rq_psn, expecting it).
        wr_en = 1'b1;
        wr_addr = ld_qp_reg;
        wr_data = rs_entry(1'b1, ld_remote_reg, ld_psn_valid_reg, ld_epsn_reg, 24'd0, 1'b0, 8'd0,
                           {SACK_WINDOW{1'b0}}, 32'd0);
    end else if (w_valid_reg) begin
        wr_en = 1'b1;
        wr_data = w_word_reg;
    end
end

always @(posedge clk) begin
    init_reg <= init_next;
    init_addr_reg <= init_addr_next;
    coalesce_limit_reg <= $signed({1'b0, cfg_ack_coalesce}) - 9'sd1;
    selective_reg <= cfg_ack_mode == ACK_MODE_METAROCE;
    coalesce_time_reg <= cfg_ack_coalesce_ns != 32'd0;

    // R takes the event; B takes R's with its word (W's being written, if
    // of the same QP) and B's (C's) updated word beside it; W takes that.
    r_valid_reg <= accept_in_range;
    r_selective_reg <= accept_in_range && selective_reg;
    // R never holds, so its event register loads every cycle (r_valid_reg
    // says whether it holds one): its enables wait for no handshake.
    r_evt_reg <= s_evt_word;
    b_valid_reg <= r_valid_reg;
    b_evt_reg <= r_evt_reg;
    b_psn_next_reg <= r_psn + 24'd1;
    b_entry_reg <= entry;
    b_fwd_reg <= fwd_from_b;
    b_fwd_word_reg <= last_word;
    c_valid_reg <= b_valid_reg && selective_reg;
    c_evt_reg <= b_evt_reg;
    c_entry_reg <= b_fwd_reg ? b_fwd_word_reg : b_entry_reg;
    c_in_order_reg <= in_order;
    c_ahead_reg <= ahead;
    c_in_window_reg <= in_window;
    c_bit_held_reg <= bit_held;
    c_before_held_reg <= before_held;
    c_ack_due_reg <= ack_in_order || late;
    c_window_bit_reg <= window_bit;
    c_run_reg <= run;
    c_psn_next_reg <= b_psn_next_reg;
    c_epsn_minus_1_reg <= ent_epsn - 24'd1;
    w_valid_reg <= last_valid;
    fwd_from_w_reg <= last_valid && last_qp == s_evt_qp[QP_INDEX_WIDTH-1:0];
    ld_valid_reg <= s_qpctx_valid && s_qpctx_ready && {8'd0, s_qpctx_local} < QP_COUNT;
    ld_qp_reg <= s_qpctx_local[QP_INDEX_WIDTH-1:0];
    ld_remote_reg <= s_qpctx_remote;
    ld_psn_valid_reg <= s_qpctx_psn_valid;
    ld_epsn_reg <= s_qpctx_psn_valid ? s_qpctx_psn : 24'd0;
    w_qp_reg <= last_qp;
    w_word_reg <= last_word;

    if (rst) begin
        init_reg <= 1'b1;
        init_addr_reg <= 0;
        r_valid_reg <= 1'b0;
        r_selective_reg <= 1'b0;
        b_valid_reg <= 1'b0;
        b_fwd_reg <= 1'b0;
        c_valid_reg <= 1'b0;
        w_valid_reg <= 1'b0;
        fwd_from_w_reg <= 1'b0;
        ld_valid_reg <= 1'b0;
    end
end

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
always @(posedge clk) begin
    if (!rst) begin
        // A context load waits for the pipeline to drain (one RAM write port).
        assert (!(s_qpctx_valid && s_qpctx_ready && (r_valid_reg || b_valid_reg || c_valid_reg || w_valid_reg)))
        else metaroce_assertion_failed("roce_responder: a context load beside a write-back");
        // ... and so is its write, a cycle later.
        assert (!(ld_valid_reg && (init_reg || w_valid_reg)))
        else metaroce_assertion_failed("roce_responder: a context load's write beside another");
    end
end
`endif

endmodule

`resetall

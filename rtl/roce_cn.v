// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "metaroce_cfg.vh"
`include "reply_addr.vh"

/*
 * Congestion-notification block (SPEC.md §6): one event input feeding the
 * notification point (received data: CNPs out), the RC responder (received
 * RC SEND/WRITE requests: ACKs and NAKs out, SPEC.md §6.10), the RC
 * requester (sent RC SEND/WRITE requests and received ACKs and NAKs:
 * retransmit requests out, SPEC.md §6.11) and the reaction point (received
 * CNPs and sent bytes: rate changes out). A received-data event of an RC
 * request goes to both the notification point and the responder, one
 * with an AETH syndrome (an ACK or NAK) to both the notification point
 * and the requester, and a sent-data event of an RC request to both the
 * reaction point and the requester; an event is taken when every part it
 * goes to can take it. A context load goes to the notification point and
 * the responder when both can take it, and holds received-data events
 * meanwhile. CNPs and ACKs share the frame output, a whole frame at
 * a time (a waiting CNP first), through a register stage (roce_skid.v):
 * no combinational path runs from m_axis_tready into either builder. The
 * frame output, the rate changes and the retransmit requests are
 * independent streams, each in its own order.
 *
 * | port              | width      | meaning                                       |
 * |-------------------|------------|-----------------------------------------------|
 * | s_evt_kind        | 2          | 0 received data, 1 received CNP, 2 sent data,  |
 * |                   |            | 3 time alone (the requester's clock)           |
 * | s_evt_*           |            | the event fields (cnp_notify.v, dcqcn_rp.v,    |
 * |                   |            | roce_responder.v)                              |
 * | s_evt_ipv6 ..     | 1+13+96+   | the addresses a CNP or ACK answers with: IPv6, |
 * | s_evt_udp_sport   | 256+16     | VLAN valid/ID, MACs (first wire byte in 47:40),|
 * |                   |            | IPs (127:120; IPv4 in 31:0), UDP source port;  |
 * |                   |            | one bus inside (rtl/reply_addr.vh)             |
 * | s_evt_psn         | 24         | received and sent data: BTH PSN                |
 * | s_evt_ack_req     | 1          | received data: BTH AckReq                      |
 * | s_evt_rc_req      | 1          | received and sent data: an RC SEND/WRITE       |
 * |                   |            | request (to the responder, received; to the    |
 * |                   |            | requester, sent)                               |
 * | s_evt_msg_end     | 1          | received data: last or only packet of one      |
 * | s_evt_syndrome_   | 1/8        | received data: an RC ACKNOWLEDGE's AETH        |
 * | valid/syndrome    |            | syndrome (to the requester as well); never     |
 * |                   |            | with s_evt_rc_req                              |
 * | s_evt_sack_valid/ | 1/1/64     | received data: that ACK's selective-ACK        |
 * | beyond/bitmap     |            | extension (SPEC.md §6.10; to the requester)    |
 * | s_qpctx_*         |            | QP context table writes (cnp_notify.v,         |
 * |                   |            | roce_responder.v: psn_valid/psn = rq_psn)      |
 * | cfg               | CFG_WIDTH  | registers (rtl/metaroce_cfg.vh), held constant |
 * | m_axis_*          | DATA_WIDTH | CNP, ACK and NAK frames, tuser = emit tick     |
 * | m_rate_*          |            | rate changes, sent packets handed on (dcqcn_rp) |
 * | m_retx_*          | 64/24/24/24| retransmit requests: time, qp, psn, count,     |
 * |                   | /2/64      | cause, mask                                    |
 * |                   |            | (roce_requester.v)                             |
 * | timer_valid/time  | 1/64       | the requester's next timer may run out at this |
 * |                   |            | tick or later (roce_requester.v)               |
 * | busy              | 1          | any point still holds work (drain status)      |
 */
module roce_cn #(
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
    input  wire [1:0]             s_evt_kind,
    input  wire [63:0]            s_evt_time,
    input  wire [23:0]            s_evt_qp,
    input  wire                   s_evt_ce,
    input  wire [16:0]            s_evt_len,
    input  wire                   s_evt_ipv6,
    input  wire                   s_evt_vlan_valid,
    input  wire [11:0]            s_evt_vlan_id,
    input  wire [47:0]            s_evt_eth_dst,
    input  wire [47:0]            s_evt_eth_src,
    input  wire [127:0]           s_evt_ip_src,
    input  wire [127:0]           s_evt_ip_dst,
    input  wire [15:0]            s_evt_udp_sport,
    input  wire                   s_evt_src_qp_valid,
    input  wire [23:0]            s_evt_src_qp,
    input  wire                   s_evt_extent_valid,
    input  wire [15:0]            s_evt_extent,
    input  wire [23:0]            s_evt_psn,
    input  wire                   s_evt_ack_req,
    input  wire                   s_evt_rc_req,
    input  wire                   s_evt_msg_end,
    input  wire                   s_evt_syndrome_valid,
    input  wire [7:0]             s_evt_syndrome,
    input  wire                   s_evt_sack_valid,
    input  wire                   s_evt_sack_beyond,
    input  wire [63:0]            s_evt_sack_bitmap,

    output wire [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire [63:0]            m_axis_tuser,

    output wire                   m_rate_valid,
    input  wire                   m_rate_ready,
    output wire [63:0]            m_rate_time,
    output wire [23:0]            m_rate_qp,
    output wire [31:0]            m_rate_rate,
    output wire [31:0]            m_rate_target,
    output wire [15:0]            m_rate_alpha,
    output wire [1:0]             m_rate_stage,
    output wire [1:0]             m_rate_trigger,
    output wire                   m_rate_sent,
    output wire [16:0]            m_rate_len,

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

`include "metaroce_defs.vh"

wire to_np = s_evt_kind == KIND_RX_DATA;
wire to_resp = to_np && s_evt_rc_req;
wire to_rp = s_evt_kind == KIND_RX_CNP || s_evt_kind == KIND_TX_DATA;
// The requester: sent RC requests (with the reaction point) and received
// ACKs and NAKs (with the notification point).
wire tx_rc_req = s_evt_kind == KIND_TX_DATA && s_evt_rc_req;
wire rx_syndrome = to_np && s_evt_syndrome_valid;
wire to_req = tx_rc_req || rx_syndrome;
wire np_ready;
wire resp_ready;
wire rp_ready;
wire req_ready;
wire np_busy;
wire resp_busy;
wire rp_busy;
wire req_busy;
wire out_busy;

assign busy = np_busy || resp_busy || rp_busy || req_busy || out_busy;

// A context load goes to the notification point and the responder at once.
wire np_qpctx_ready;
wire resp_qpctx_ready;
assign s_qpctx_ready = np_qpctx_ready && resp_qpctx_ready;

// Received data goes to the notification point and, an RC request, to the
// responder too; sent data and CNPs go to the reaction point. Every event
// goes to the requester as well: its time for the retransmit timers, and
// its input when it is an ACK or NAK or a sent RC request. An event is
// taken when every one it goes to can take it, and received data never
// beside a waiting context load (which goes first). A time event
// (KIND_TIME: the driver's clock, with no frame) goes to the requester
// alone.
wire rx_open = !s_qpctx_valid && np_ready && (!s_evt_rc_req || resp_ready);
assign s_evt_ready = req_ready && (to_np ? rx_open : (to_rp ? rp_ready : 1'b1));
wire np_evt_valid = s_evt_valid && to_np && !s_qpctx_valid && (!s_evt_rc_req || resp_ready) && req_ready;
wire resp_evt_valid = s_evt_valid && to_resp && !s_qpctx_valid && np_ready && req_ready;
wire rp_evt_valid = s_evt_valid && to_rp && req_ready;
wire req_evt_valid = s_evt_valid && (to_np ? rx_open : (to_rp ? rp_ready : 1'b1));

// The received packet's addresses, which its CNP or ACK answers with: one
// bus (rtl/reply_addr.vh) to both reply points.
wire [`REPLY_ADDR_WIDTH-1:0] evt_reply_addr = `REPLY_ADDR_PACK(s_evt_ipv6, s_evt_vlan_valid, s_evt_vlan_id,
    s_evt_eth_dst, s_evt_eth_src, s_evt_ip_src, s_evt_ip_dst, s_evt_udp_sport);

// The two frame sources, merged below.
wire [DATA_WIDTH-1:0] np_axis_tdata;
wire [KEEP_WIDTH-1:0] np_axis_tkeep;
wire                  np_axis_tvalid;
wire                  np_axis_tready;
wire                  np_axis_tlast;
wire [63:0]           np_axis_tuser;
wire [DATA_WIDTH-1:0] ack_axis_tdata;
wire [KEEP_WIDTH-1:0] ack_axis_tkeep;
wire                  ack_axis_tvalid;
wire                  ack_axis_tready;
wire                  ack_axis_tlast;
wire [63:0]           ack_axis_tuser;

cnp_notify #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .QP_COUNT(QP_COUNT),
    .ROCE_UDP_PORT(ROCE_UDP_PORT)
) np_inst (
    .clk(clk),
    .rst(rst),
    .cfg(cfg),
    .s_qpctx_valid(s_qpctx_valid && resp_qpctx_ready),
    .s_qpctx_ready(np_qpctx_ready),
    .s_qpctx_local(s_qpctx_local),
    .s_qpctx_remote(s_qpctx_remote),
    .s_evt_valid(np_evt_valid),
    .s_evt_ready(np_ready),
    .s_evt_time(s_evt_time),
    .s_evt_qp(s_evt_qp),
    .s_evt_ce(s_evt_ce),
    .s_evt_reply_addr(evt_reply_addr),
    .s_evt_src_qp_valid(s_evt_src_qp_valid),
    .s_evt_src_qp(s_evt_src_qp),
    .m_axis_tdata(np_axis_tdata),
    .m_axis_tkeep(np_axis_tkeep),
    .m_axis_tvalid(np_axis_tvalid),
    .m_axis_tready(np_axis_tready),
    .m_axis_tlast(np_axis_tlast),
    .m_axis_tuser(np_axis_tuser),
    .busy(np_busy)
);

roce_responder #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .QP_COUNT(QP_COUNT),
    .ROCE_UDP_PORT(ROCE_UDP_PORT)
) resp_inst (
    .clk(clk),
    .rst(rst),
    .cfg(cfg),
    .s_qpctx_valid(s_qpctx_valid && np_qpctx_ready),
    .s_qpctx_ready(resp_qpctx_ready),
    .s_qpctx_local(s_qpctx_local),
    .s_qpctx_remote(s_qpctx_remote),
    .s_qpctx_psn_valid(s_qpctx_psn_valid),
    .s_qpctx_psn(s_qpctx_psn),
    .s_evt_valid(resp_evt_valid),
    .s_evt_ready(resp_ready),
    .s_evt_time(s_evt_time),
    .s_evt_qp(s_evt_qp),
    .s_evt_reply_addr(evt_reply_addr),
    .s_evt_psn(s_evt_psn),
    .s_evt_ack_req(s_evt_ack_req),
    .s_evt_msg_end(s_evt_msg_end),
    .m_axis_tdata(ack_axis_tdata),
    .m_axis_tkeep(ack_axis_tkeep),
    .m_axis_tvalid(ack_axis_tvalid),
    .m_axis_tready(ack_axis_tready),
    .m_axis_tlast(ack_axis_tlast),
    .m_axis_tuser(ack_axis_tuser),
    .busy(resp_busy)
);

// The frame arbiter: a source, once offered, keeps the output to the end
// of its frame (no other frame's beats in between, and no offer withdrawn);
// between frames a waiting CNP goes before a waiting ACK. Its beats pass a
// register stage: out_ready comes from a register.
reg  lock_reg = 1'b0;
reg  lock_ack_reg = 1'b0;
wire out_ready;
wire grant_ack = lock_reg ? lock_ack_reg : !np_axis_tvalid;
wire out_valid = grant_ack ? ack_axis_tvalid : np_axis_tvalid;
wire out_last = grant_ack ? ack_axis_tlast : np_axis_tlast;
assign np_axis_tready = out_ready && !grant_ack;
assign ack_axis_tready = out_ready && grant_ack;

always @(posedge clk) begin
    if (out_valid) begin
        // Held from the first offer to the frame's last beat.
        lock_reg <= !(out_ready && out_last);
        lock_ack_reg <= grant_ack;
    end
    if (rst) begin
        lock_reg <= 1'b0;
        lock_ack_reg <= 1'b0;
    end
end

roce_skid #(
    .WIDTH(DATA_WIDTH + KEEP_WIDTH + 1 + 64)
) out_skid_inst (
    .clk(clk),
    .rst(rst),
    .s_valid(out_valid),
    .s_ready(out_ready),
    .s_data(grant_ack ? {ack_axis_tdata, ack_axis_tkeep, ack_axis_tlast, ack_axis_tuser}
                      : {np_axis_tdata, np_axis_tkeep, np_axis_tlast, np_axis_tuser}),
    .m_valid(m_axis_tvalid),
    .m_ready(m_axis_tready),
    .m_data({m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tuser}),
    .busy(out_busy)
);

dcqcn_rp #(
    .QP_COUNT(QP_COUNT)
) rp_inst (
    .clk(clk),
    .rst(rst),
    .cfg(cfg),
    .s_evt_valid(rp_evt_valid),
    .s_evt_ready(rp_ready),
    .s_evt_time(s_evt_time),
    .s_evt_cnp(s_evt_kind == KIND_RX_CNP),
    .s_evt_qp(s_evt_qp),
    .s_evt_len(s_evt_len),
    .s_evt_extent_valid(s_evt_extent_valid),
    .s_evt_extent(s_evt_extent),
    .m_rate_valid(m_rate_valid),
    .m_rate_ready(m_rate_ready),
    .m_rate_time(m_rate_time),
    .m_rate_qp(m_rate_qp),
    .m_rate_rate(m_rate_rate),
    .m_rate_target(m_rate_target),
    .m_rate_alpha(m_rate_alpha),
    .m_rate_stage(m_rate_stage),
    .m_rate_trigger(m_rate_trigger),
    .m_rate_sent(m_rate_sent),
    .m_rate_len(m_rate_len),
    .busy(rp_busy)
);

roce_requester #(
    .QP_COUNT(QP_COUNT)
) req_inst (
    .clk(clk),
    .rst(rst),
    .cfg(cfg),
    .s_evt_valid(req_evt_valid),
    .s_evt_ready(req_ready),
    .s_evt_time(s_evt_time),
    .s_evt_input(to_req),
    .s_evt_qp(s_evt_qp),
    .s_evt_tx(!rx_syndrome),
    .s_evt_psn(s_evt_psn),
    .s_evt_syndrome(s_evt_syndrome),
    .s_evt_sack_valid(s_evt_sack_valid),
    .s_evt_sack_beyond(s_evt_sack_beyond),
    .s_evt_sack_bitmap(s_evt_sack_bitmap),
    .m_retx_valid(m_retx_valid),
    .m_retx_ready(m_retx_ready),
    .m_retx_time(m_retx_time),
    .m_retx_qp(m_retx_qp),
    .m_retx_psn(m_retx_psn),
    .m_retx_count(m_retx_count),
    .m_retx_cause(m_retx_cause),
    .m_retx_mask(m_retx_mask),
    .timer_valid(timer_valid),
    .timer_time(timer_time),
    .busy(req_busy)
);

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
// Ticks never go backwards (SPEC.md §2); both points rely on it.
reg [63:0] last_time_reg = 0;
always @(posedge clk) begin
    if (!rst && s_evt_valid && s_evt_ready) begin
        last_time_reg <= s_evt_time;
        assert (s_evt_time >= last_time_reg)
        else metaroce_assertion_failed("roce_cn: event time went backwards");
    end
    if (!rst) begin
        // An RC request goes to both points or to neither.
        assert (!(s_evt_valid && s_evt_ready && to_np)
                || (np_evt_valid && np_ready && (resp_evt_valid && resp_ready) == s_evt_rc_req))
        else metaroce_assertion_failed("roce_cn: an RC request taken by one point only");
        // Every event is taken by the requester and by the points it goes
        // to, or by none.
        assert (!(s_evt_valid && s_evt_ready) || (req_evt_valid && req_ready))
        else metaroce_assertion_failed("roce_cn: an event taken without the requester");
        assert (!(s_evt_valid && s_evt_ready && to_rp) || (rp_evt_valid && rp_ready))
        else metaroce_assertion_failed("roce_cn: a reaction-point event taken without it");
        assert (!(req_evt_valid && req_ready) || (s_evt_valid && s_evt_ready))
        else metaroce_assertion_failed("roce_cn: the requester took an event the block did not");
        // An event is an RC request or an ACK/NAK, never both.
        assert (!(s_evt_valid && s_evt_rc_req && s_evt_syndrome_valid))
        else metaroce_assertion_failed("roce_cn: an event with both rc_req and syndrome_valid");
        // A frame source keeps the output to its frame's end.
        assert (!(lock_reg && !(lock_ack_reg ? ack_axis_tvalid : np_axis_tvalid)))
        else metaroce_assertion_failed("roce_cn: a frame source withdrew in mid-frame");
    end
end
`endif

endmodule

`resetall

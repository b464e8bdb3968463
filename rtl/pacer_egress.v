// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The pacer's egress (SPEC.md §7.5; golden golden/src/pacer/egress.rs): the
 * packets the wheel has served wait here, one FIFO per priority, until
 * their leave time has come, and a PAUSE or PFC frame holds a priority's.
 *
 * A priority's head packet leaves at leave = max(eligible, link_free),
 * or at the end of its priority's pause when that time falls strictly
 * inside it; of the heads, the earliest leave goes first (the first
 * served on a tie: a serve sequence number, compared modulo 2^(DIW+1)).
 * It is decided only once leave <= now (ns, Q44.20 against now * 2^20),
 * or with drain_all; then link_free = leave + len * line_byte_time and
 * the release's tick is ceil(leave).
 *
 * Storage: an entry RAM (qp, len, eligible, sequence) and a link RAM of
 * DESC_COUNT words (the pool rule, SPEC.md §7.3, keeps every packet in
 * the wheel or here within DESC_COUNT), indices from a free FIFO (fresh
 * ones first). Per priority: the count, the head's and tail's indices,
 * the head entry in registers and the index after it.
 *
 * Decisions are a loop through registers: stage 0 max(eligible,
 * link_free) per head, 1 the pause, 2-4 a tree of minimums, 5 the winner
 * (and its words) against now; the decision, then M1 takes the packet off
 * its list (the next head fetched, on the RAMs two cycles on) and the
 * product len * line_byte_time in pieces, M2 link_free. Any change of a
 * head, link_free or a pause starts the count of settled cycles over; a
 * decision waits for 6 (so a release every 10 cycles while packets are
 * due). The packet arriving and each list's counts are registered, so
 * the lists' logic starts from registers. A pause is applied one priority
 * a cycle (its quanta times line_byte_time in pieces, then the sum and
 * whether the pause is in force, then the write).
 *
 * | port              | width | meaning                                   |
 * |-------------------|-------|-------------------------------------------|
 * | line_byte_time    | 40    | register line_byte_time (Q20.20)          |
 * | now               | 64    | ns: the wheel has served every slot that  |
 * |                   |       | starts by then; packets due by it leave   |
 * | drain_all         | 1     | the wheel is empty at the flush: every    |
 * |                   |       | packet leaves (a paused one at its end)   |
 * | reserve           | 1     | a descriptor served, on in_* 2 cycles on  |
 * | in_valid, in_*    |       | it (in_live 0: stale, nothing to keep)    |
 * | drop_valid, drop_*|       | a drop, only with caught_up and room      |
 * | pause_valid       | 1     | a PAUSE/PFC command at pause_time (ns):   |
 * | pause_enable      | 8     | bit p: priority p's time is ...           |
 * | pause_quanta      | 128   | ... here, priority 0 in bits 127:112      |
 * | freed             | 2     | descriptors given back this cycle (a      |
 * |                   |       | stale one, a release)                     |
 * | caught_up         | 1     | nothing due by now is left, nothing on    |
 * |                   |       | its way in, no pause being applied, every |
 * |                   |       | decision out                              |
 * | room              | 1     | the output has room for a drop            |
 * | idle              | 1     | caught up, no drain_all work, output empty|
 * | next_valid, _tick | 1, 64 | the next leave (rounded up to its tick)   |
 * | held_eligible     | 64    | in_eligible a cycle later (cascades)      |
 * | m_rel_*           |       | roce_pacer.v's release output             |
 */
module pacer_egress #(
    parameter QP_INDEX_WIDTH = 12,
    parameter DESC_COUNT = 4096,
    parameter OUT_DEPTH = 8
) (
    input  wire                      clk,
    input  wire                      rst,
    input  wire [39:0]               line_byte_time,
    input  wire [63:0]               now,
    input  wire                      drain_all,

    input  wire                      reserve,
    input  wire                      in_valid,
    input  wire [QP_INDEX_WIDTH-1:0] in_qp,
    input  wire [16:0]               in_len,
    input  wire [63:0]               in_eligible,
    input  wire [2:0]                in_priority,
    input  wire                      in_live,

    input  wire                      drop_valid,
    input  wire [63:0]               drop_time,
    input  wire [QP_INDEX_WIDTH-1:0] drop_qp,
    input  wire [16:0]               drop_len,

    input  wire                      pause_valid,
    input  wire [63:0]               pause_time,
    input  wire [7:0]                pause_enable,
    input  wire [127:0]              pause_quanta,

    output wire [1:0]                freed,
    output wire                      caught_up,
    output wire                      room,
    output wire                      idle,
    output wire                      next_valid,
    output wire [63:0]               next_tick,
    output wire [63:0]               held_eligible,

    output wire                      m_rel_valid,
    input  wire                      m_rel_ready,
    output wire [63:0]               m_rel_time,
    output wire [23:0]               m_rel_qp,
    output wire [16:0]               m_rel_len,
    output wire                      m_rel_drop
);

localparam FRAC_BITS = 20;
localparam PRIORITIES = 8;
localparam DIW = $clog2(DESC_COUNT);
localparam SEQ_W = DIW + 1;
localparam [DIW:0] DESC_FULL = DESC_COUNT[DIW:0];
localparam ENTRY_WIDTH = QP_INDEX_WIDTH + 17 + 64 + SEQ_W;
localparam [2:0] SETTLED = 3'd6;
localparam OUT_INDEX_WIDTH = $clog2(OUT_DEPTH);
localparam OUT_WIDTH = 64 + QP_INDEX_WIDTH + 17 + 1;
localparam [OUT_INDEX_WIDTH+1:0] CAPACITY = OUT_DEPTH + 1;

generate
    if (OUT_DEPTH < 2 || (OUT_DEPTH & (OUT_DEPTH - 1)) != 0) begin : g_bad_out_depth
        pacer_egress_OUT_DEPTH_must_be_a_power_of_2_at_least_2 bad_out_depth();
    end
endgenerate

// Priority p one-hot when valid, else none.
function [PRIORITIES-1:0] hot_if(input valid, input [2:0] p);
    hot_if = valid ? {{(PRIORITIES-1){1'b0}}, 1'b1} << p : {PRIORITIES{1'b0}};
endfunction

// a goes before b: earlier leave, or the same and served first.
function goes_first(input [63:0] time_a, input [SEQ_W-1:0] seq_a, input [63:0] time_b, input [SEQ_W-1:0] seq_b);
    reg [SEQ_W-1:0] diff;
    begin
        diff = seq_a - seq_b;
        goes_first = time_a < time_b || (time_a == time_b && diff[SEQ_W-1]);
    end
endfunction

reg [63:0] link_free_reg = 64'd0;
// A copy per priority for stage 0 (its fan-out).
reg [PRIORITIES*64-1:0] link_free_copy_reg = 0;

// Per priority: entries (and whether none, one or two), head and tail
// indices, the index after the head, the head entry (ready: loaded, not
// being fetched).
reg [PRIORITIES*(DIW+1)-1:0] cnt_reg = 0;
reg [PRIORITIES-1:0]         empty_reg = {PRIORITIES{1'b1}}, one_reg = 0, two_reg = 0;
reg [PRIORITIES*DIW-1:0]     head_idx_reg, tail_idx_reg, after_idx_reg;
reg [PRIORITIES-1:0] ready_reg = 0;
reg [PRIORITIES*QP_INDEX_WIDTH-1:0] hd_qp_reg;
reg [PRIORITIES*17-1:0]             hd_len_reg;
reg [PRIORITIES*64-1:0]             hd_elig_reg;
reg [PRIORITIES*SEQ_W-1:0]          hd_seq_reg;
// Pauses: no packet of priority p leaves strictly between start and resume.
reg [PRIORITIES*64-1:0] start_reg = 0, resume_reg = 0;

reg [SEQ_W-1:0] seq_reg = 0;
reg [1:0]       inflight_reg = 2'd0;
reg [2:0]       age_reg = 3'd0;
reg [63:0]      now_prev_reg = 64'd0;

// Index allocation: fresh indices, then the free FIFO; the next in spare.
reg [DIW:0]   fresh_reg = 0;
reg [DIW:0]   free_wr_reg = 0, free_rd_reg = 0;
reg [DIW-1:0] spare_reg = 0;
reg           spare_ok_reg = 1'b0, spare_fetch_reg = 1'b0, spare_land_reg = 1'b0;
wire [DIW-1:0] free_rd_data;

// A head fetch: priority, and its two cycles on the RAMs; per priority,
// whether an append wrote the link the fetch read (then it set the index
// after the head itself).
reg       fetch1_reg = 1'b0, fetch2_reg = 1'b0;
reg [2:0] fetch_p_reg = 3'd0;
reg [PRIORITIES-1:0] appended_reg = 0;
// The packet arriving, registered off the descriptor RAM (a live one's
// priority one-hot in a_arr_hot_reg).
reg                      a_valid_reg = 1'b0;
reg                      a_live_reg;
reg [QP_INDEX_WIDTH-1:0] a_qp_reg;
reg [16:0]               a_len_reg;
reg [63:0]               a_elig_reg;
reg [2:0]                a_prio_reg;
// Per priority, registered so that the lists' enables start from few
// registers: a live packet arriving (arrive at a_prio_reg), and a head
// fetch landing (fetch2_reg at fetch_p_reg).
reg [PRIORITIES-1:0]     a_arr_hot_reg = 0;
reg [PRIORITIES-1:0]     land_hot_reg = 0;
wire [ENTRY_WIDTH-1:0] entry_rd_data;
wire [DIW-1:0]         link_rd_data;

// The decision loop's stages.
reg [PRIORITIES-1:0]       s0_valid_reg = 0, s1_valid_reg = 0;
reg [PRIORITIES*64-1:0]    s0_time_reg, s1_time_reg;
reg [PRIORITIES*SEQ_W-1:0] s0_seq_reg, s1_seq_reg;
reg [3:0]        s2_valid_reg = 0;
reg [4*64-1:0]   s2_time_reg;
reg [4*SEQ_W-1:0] s2_seq_reg;
reg [4*3-1:0]    s2_p_reg;
reg [1:0]        s3_valid_reg = 0;
reg [2*64-1:0]   s3_time_reg;
reg [2*SEQ_W-1:0] s3_seq_reg;
reg [2*3-1:0]    s3_p_reg;
reg              s4_valid_reg = 1'b0;
reg [63:0]       s4_time_reg;
reg [2:0]        s4_p_reg;
reg              s5_valid_reg = 1'b0, s5_due_reg = 1'b0, s5_at_link_reg = 1'b0;
reg [63:0]       s5_time_reg, s5_tick_reg;
reg [2:0]        s5_p_reg;
reg [PRIORITIES-1:0] s5_hot_reg = 0;
// The winner's words, taken at stage 5 (a change of any of them since
// restarts the settling, so they are current at a decision).
reg [QP_INDEX_WIDTH-1:0] s5_qp_reg;
reg [16:0]               s5_len_reg;
reg [DIW-1:0]            s5_head_reg, s5_after_reg;
reg                      s5_multi_reg;
reg              caught_up_reg = 1'b0;
// After a decision: M1 the product in pieces, M2 link_free.
reg                      m1_reg = 1'b0, m2_reg = 1'b0;
reg [63:0]               m1_leave_reg, m2_leave_reg, m1_tick_reg;
reg [QP_INDEX_WIDTH-1:0] m1_qp_reg;
reg [16:0]               m1_len_reg;
// M1 also takes the packet off its list (registered, so the lists' logic
// starts from registers): its priority, head and the index after it.
reg [PRIORITIES-1:0]     m1_hot_reg = 0;
reg [2:0]                m1_p_reg;
reg [DIW-1:0]            m1_head_reg, m1_after_reg;
reg                      m1_multi_reg;
reg [34:0]               m2_wire0_reg, m2_wire1_reg;
reg [20:0]               m2_wire2_reg;

// A pause being applied: one priority a cycle; stage 1 its pause times
// quanta in pieces and its pause now, 2 the new end and whether the pause
// is in force, then the write.
reg         pz_busy_reg = 1'b0, pz1_reg = 1'b0, pz2_reg = 1'b0;
reg [3:0]   pz_p_reg = 4'd0;
reg [63:0]  pz_time_reg;
reg [7:0]   pz_enable_reg;
reg [127:0] pz_quanta_reg;
reg [2:0]   pz1_p_reg, pz2_p_reg;
reg         pz1_en_reg, pz2_en_reg, pz2_keep_reg;
reg [33:0]  pz1_wire0_reg, pz1_wire1_reg;
reg [19:0]  pz1_wire2_reg;
reg [63:0]  pz1_start_reg, pz1_resume_reg, pz2_resume_reg;

// The output FIFO and register; out_count_reg counts them and the
// decision on its way (M1).
reg [OUT_WIDTH-1:0]       fifo_mem [0:OUT_DEPTH-1];
reg [OUT_INDEX_WIDTH:0]   fifo_wr_reg = 0, fifo_rd_reg = 0;
reg [OUT_INDEX_WIDTH+1:0] out_count_reg = 0;
reg                       out_valid_reg = 1'b0;
reg [OUT_WIDTH-1:0]       out_reg;

wire settled = age_reg == SETTLED && !pz_busy_reg;
wire fresh = settled && inflight_reg == 2'd0;
wire arrive = a_valid_reg && a_live_reg;
// A packet on its way in cannot go before a winner that leaves when the
// link is free (it would leave then too, served later), so only a winner
// whose own time or pause sets its leave waits for it.
wire decide = settled && (inflight_reg == 2'd0 || s5_at_link_reg) && s5_valid_reg && (s5_due_reg || drain_all)
              && out_count_reg != CAPACITY;
wire [63:0] now_fp = now << FRAC_BITS;

// Stages 2-4: the tree of minimums.
integer i;
reg [3:0]         t2_valid;
reg [4*64-1:0]    t2_time;
reg [4*SEQ_W-1:0] t2_seq;
reg [4*3-1:0]     t2_p;
reg [1:0]         t3_valid;
reg [2*64-1:0]    t3_time;
reg [2*SEQ_W-1:0] t3_seq;
reg [2*3-1:0]     t3_p;
reg               a_wins;
always @* begin
    for (i = 0; i < 4; i = i + 1) begin
        a_wins = s1_valid_reg[2*i] && (!s1_valid_reg[2*i+1]
            || goes_first(s1_time_reg[128*i +: 64], s1_seq_reg[2*i*SEQ_W +: SEQ_W],
                      s1_time_reg[128*i+64 +: 64], s1_seq_reg[(2*i+1)*SEQ_W +: SEQ_W]));
        t2_valid[i] = s1_valid_reg[2*i] || s1_valid_reg[2*i+1];
        t2_time[64*i +: 64] = a_wins ? s1_time_reg[128*i +: 64] : s1_time_reg[128*i+64 +: 64];
        t2_seq[SEQ_W*i +: SEQ_W] = a_wins ? s1_seq_reg[2*i*SEQ_W +: SEQ_W] : s1_seq_reg[(2*i+1)*SEQ_W +: SEQ_W];
        t2_p[3*i +: 3] = {i[1:0], !a_wins};
    end
    for (i = 0; i < 2; i = i + 1) begin
        a_wins = s2_valid_reg[2*i] && (!s2_valid_reg[2*i+1]
            || goes_first(s2_time_reg[128*i +: 64], s2_seq_reg[2*i*SEQ_W +: SEQ_W],
                      s2_time_reg[128*i+64 +: 64], s2_seq_reg[(2*i+1)*SEQ_W +: SEQ_W]));
        t3_valid[i] = s2_valid_reg[2*i] || s2_valid_reg[2*i+1];
        t3_time[64*i +: 64] = a_wins ? s2_time_reg[128*i +: 64] : s2_time_reg[128*i+64 +: 64];
        t3_seq[SEQ_W*i +: SEQ_W] = a_wins ? s2_seq_reg[2*i*SEQ_W +: SEQ_W] : s2_seq_reg[(2*i+1)*SEQ_W +: SEQ_W];
        t3_p[3*i +: 3] = a_wins ? s2_p_reg[6*i +: 3] : s2_p_reg[6*i+3 +: 3];
    end
end
wire s3_a_wins = s3_valid_reg[0] && (!s3_valid_reg[1]
    || goes_first(s3_time_reg[63:0], s3_seq_reg[SEQ_W-1:0], s3_time_reg[127:64], s3_seq_reg[2*SEQ_W-1:SEQ_W]));

// Stages 0 and 1, per priority.
genvar p;
generate
    for (p = 0; p < PRIORITIES; p = p + 1) begin : g_stage
        wire [63:0] elig = hd_elig_reg[64*p +: 64];
        wire [63:0] free_at = link_free_copy_reg[64*p +: 64];
        wire [63:0] at = s0_time_reg[64*p +: 64];
        wire [63:0] pstart = start_reg[64*p +: 64];
        wire [63:0] presume = resume_reg[64*p +: 64];
        always @(posedge clk) begin
            s0_valid_reg[p] <= ready_reg[p];
            s0_time_reg[64*p +: 64] <= elig > free_at ? elig : free_at;
            if (m2_reg) begin
                link_free_copy_reg[64*p +: 64] <= m2_leave_reg + {6'd0, m_sum};
            end
            if (rst) begin
                link_free_copy_reg[64*p +: 64] <= 64'd0;
            end
            s0_seq_reg[SEQ_W*p +: SEQ_W] <= hd_seq_reg[SEQ_W*p +: SEQ_W];
            s1_valid_reg[p] <= s0_valid_reg[p];
            s1_time_reg[64*p +: 64] <= pstart < at && at < presume ? presume : at;
            s1_seq_reg[SEQ_W*p +: SEQ_W] <= s0_seq_reg[SEQ_W*p +: SEQ_W];
            if (rst) begin
                s0_valid_reg[p] <= 1'b0;
                s1_valid_reg[p] <= 1'b0;
            end
        end
    end
endgenerate

// The products after a decision and in a pause: the pieces summed.
/* verilator lint_off UNUSEDSIGNAL */
wire [57:0] m_sum = {23'd0, m2_wire0_reg} + {5'd0, m2_wire1_reg, 18'd0} + {1'd0, m2_wire2_reg, 36'd0};
wire [57:0] pz_sum = {24'd0, pz1_wire0_reg} + {6'd0, pz1_wire1_reg, 18'd0} + {2'd0, pz1_wire2_reg, 36'd0};
/* verilator lint_on UNUSEDSIGNAL */
// The quanta and the enable vector shift by a priority a cycle.
wire [15:0] pz_q = pz_quanta_reg[127:112];
wire [63:0] pz_time_fp = pz_time_reg << FRAC_BITS;

// The packet arriving, and the head leaving (decide), per priority.
wire [PRIORITIES-1:0] arr_hot = a_arr_hot_reg;
wire [PRIORITIES-1:0] dec_hot = m1_hot_reg;
wire [PRIORITIES-1:0] multi = ~empty_reg & ~one_reg;
wire [ENTRY_WIDTH-1:0] a_entry = {a_qp_reg, a_len_reg, a_elig_reg, seq_reg};
wire [DIW-1:0] a_tail = tail_idx_reg[DIW*a_prio_reg +: DIW];
wire fetch_go = m1_reg && m1_multi_reg;
wire arrive_to_winner = |(a_arr_hot_reg & s5_hot_reg);
wire [QP_INDEX_WIDTH-1:0] f_qp;
wire [16:0] f_len;
wire [63:0] f_elig;
wire [SEQ_W-1:0] f_seq;
assign {f_qp, f_len, f_elig, f_seq} = entry_rd_data;
wire free_any = free_wr_reg != free_rd_reg;
wire spare_get = !spare_ok_reg && !spare_fetch_reg && !spare_land_reg && fresh_reg == DESC_FULL && free_any;

generate
    for (p = 0; p < PRIORITIES; p = p + 1) begin : g_list
        wire arr = arr_hot[p];
        wire dec = dec_hot[p];
        wire land = land_hot_reg[p];
        // To an empty list (or one whose only packet leaves) the packet is
        // the head at once; behind the head (or the one fetched) it is the
        // packet after the head.
        wire load = arr && (empty_reg[p] || (one_reg[p] && dec));
        wire set_after = arr && ((one_reg[p] && !dec) || (two_reg[p] && dec));
        wire [DIW:0] cnt_next = cnt_reg[(DIW+1)*p +: DIW+1] + {{DIW{1'b0}}, arr} - {{DIW{1'b0}}, dec};
        always @(posedge clk) begin
            cnt_reg[(DIW+1)*p +: DIW+1] <= cnt_next;
            empty_reg[p] <= cnt_next == 0;
            one_reg[p] <= cnt_next == 1;
            two_reg[p] <= cnt_next == 2;
            if (arr) begin
                tail_idx_reg[DIW*p +: DIW] <= spare_reg;
            end
            if (dec) begin
                ready_reg[p] <= 1'b0;
                head_idx_reg[DIW*p +: DIW] <= after_idx_reg[DIW*p +: DIW];
                appended_reg[p] <= arr && two_reg[p];
            end else if (arr && one_reg[p] && fetch1_reg && fetch_p_reg == p) begin
                appended_reg[p] <= 1'b1;
            end
            if (land) begin
                ready_reg[p] <= 1'b1;
                hd_qp_reg[QP_INDEX_WIDTH*p +: QP_INDEX_WIDTH] <= f_qp;
                hd_len_reg[17*p +: 17] <= f_len;
                hd_elig_reg[64*p +: 64] <= f_elig;
                hd_seq_reg[SEQ_W*p +: SEQ_W] <= f_seq;
                if (!appended_reg[p]) begin
                    after_idx_reg[DIW*p +: DIW] <= link_rd_data;
                end
            end
            if (set_after) begin
                after_idx_reg[DIW*p +: DIW] <= spare_reg;
            end
            if (load) begin
                ready_reg[p] <= 1'b1;
                head_idx_reg[DIW*p +: DIW] <= spare_reg;
                hd_qp_reg[QP_INDEX_WIDTH*p +: QP_INDEX_WIDTH] <= a_qp_reg;
                hd_len_reg[17*p +: 17] <= a_len_reg;
                hd_elig_reg[64*p +: 64] <= a_elig_reg;
                hd_seq_reg[SEQ_W*p +: SEQ_W] <= seq_reg;
            end
            if (pz2_reg && pz2_en_reg && pz2_p_reg == p) begin
                // A pause still in force keeps its start: what it held
                // stays held.
                if (!pz2_keep_reg) begin
                    start_reg[64*p +: 64] <= pz_time_fp;
                end
                resume_reg[64*p +: 64] <= pz2_resume_reg;
            end
            if (rst) begin
                cnt_reg[(DIW+1)*p +: DIW+1] <= {(DIW+1){1'b0}};
                empty_reg[p] <= 1'b1;
                one_reg[p] <= 1'b0;
                two_reg[p] <= 1'b0;
                ready_reg[p] <= 1'b0;
                appended_reg[p] <= 1'b0;
                start_reg[64*p +: 64] <= 64'd0;
                resume_reg[64*p +: 64] <= 64'd0;
            end
        end
    end
endgenerate

always @(posedge clk) begin
    a_valid_reg <= in_valid;
    a_live_reg <= in_live;
    a_qp_reg <= in_qp;
    a_len_reg <= in_len;
    a_elig_reg <= in_eligible;
    a_prio_reg <= in_priority;
    a_arr_hot_reg <= hot_if(in_valid && in_live, in_priority);
    land_hot_reg <= hot_if(fetch1_reg, fetch_p_reg);
    if (arrive) begin
        seq_reg <= seq_reg + 1'b1;
    end
    fetch1_reg <= fetch_go;
    fetch2_reg <= fetch1_reg;
    if (fetch_go) begin
        fetch_p_reg <= m1_p_reg;
    end
    inflight_reg <= inflight_reg + {1'b0, reserve} - {1'b0, a_valid_reg};

    // Index allocation.
    if (arrive) begin
        spare_ok_reg <= 1'b0;
    end
    if (!spare_ok_reg && !arrive && fresh_reg != DESC_FULL) begin
        spare_reg <= fresh_reg[DIW-1:0];
        spare_ok_reg <= 1'b1;
        fresh_reg <= fresh_reg + 1'b1;
    end
    spare_fetch_reg <= spare_get;
    spare_land_reg <= spare_fetch_reg;
    if (spare_get) begin
        free_rd_reg <= free_rd_reg + 1'b1;
    end
    if (spare_land_reg) begin
        spare_reg <= free_rd_data;
        spare_ok_reg <= 1'b1;
    end
    if (m1_reg) begin
        free_wr_reg <= free_wr_reg + 1'b1;
    end

    // Stages 2 to 5.
    s2_valid_reg <= t2_valid;
    s2_time_reg <= t2_time;
    s2_seq_reg <= t2_seq;
    s2_p_reg <= t2_p;
    s3_valid_reg <= t3_valid;
    s3_time_reg <= t3_time;
    s3_seq_reg <= t3_seq;
    s3_p_reg <= t3_p;
    s4_valid_reg <= |s3_valid_reg;
    s4_time_reg <= s3_a_wins ? s3_time_reg[63:0] : s3_time_reg[127:64];
    s4_p_reg <= s3_a_wins ? s3_p_reg[2:0] : s3_p_reg[5:3];
    s5_valid_reg <= s4_valid_reg;
    s5_time_reg <= s4_time_reg;
    s5_p_reg <= s4_p_reg;
    s5_hot_reg <= hot_if(1'b1, s4_p_reg);
    s5_qp_reg <= hd_qp_reg[QP_INDEX_WIDTH*s4_p_reg +: QP_INDEX_WIDTH];
    s5_len_reg <= hd_len_reg[17*s4_p_reg +: 17];
    s5_head_reg <= head_idx_reg[DIW*s4_p_reg +: DIW];
    s5_after_reg <= after_idx_reg[DIW*s4_p_reg +: DIW];
    s5_multi_reg <= multi[s4_p_reg];
    s5_due_reg <= s4_time_reg <= now_fp;
    s5_at_link_reg <= s4_time_reg == link_free_reg;
    s5_tick_reg <= (s4_time_reg >> FRAC_BITS) + {63'd0, s4_time_reg[FRAC_BITS-1:0] != 0};
    caught_up_reg <= fresh && !(s5_valid_reg && s5_due_reg) && !decide && !m1_reg && !m2_reg && now == now_prev_reg;

    // After a decision.
    m1_reg <= decide;
    m1_leave_reg <= s5_time_reg;
    m1_tick_reg <= s5_tick_reg;
    m1_qp_reg <= s5_qp_reg;
    m1_len_reg <= s5_len_reg;
    // The winner's priority, one-hot while M1 holds it (0 otherwise).
    m1_hot_reg <= decide ? s5_hot_reg : {PRIORITIES{1'b0}};
    m1_p_reg <= s5_p_reg;
    m1_head_reg <= s5_head_reg;
    // A packet arriving in the decision's own cycle to the winner's list
    // of one is the packet after the winner (the settling restarts only
    // after the decision).
    m1_after_reg <= arrive_to_winner && !s5_multi_reg ? spare_reg : s5_after_reg;
    m1_multi_reg <= s5_multi_reg || arrive_to_winner;
    m2_reg <= m1_reg;
    m2_leave_reg <= m1_leave_reg;
    m2_wire0_reg <= m1_len_reg * line_byte_time[17:0];
    m2_wire1_reg <= m1_len_reg * line_byte_time[35:18];
    m2_wire2_reg <= m1_len_reg * line_byte_time[39:36];
    if (m2_reg) begin
        link_free_reg <= m2_leave_reg + {6'd0, m_sum};
    end

    // A pause: the priorities in turn.
    if (pause_valid) begin
        pz_busy_reg <= 1'b1;
        pz_p_reg <= 4'd0;
        pz_time_reg <= pause_time;
        pz_enable_reg <= pause_enable;
        pz_quanta_reg <= pause_quanta;
    end else if (pz_busy_reg && !pz_p_reg[3]) begin
        pz_p_reg <= pz_p_reg + 1'b1;
        pz_quanta_reg <= pz_quanta_reg << 16;
        pz_enable_reg <= pz_enable_reg >> 1;
    end else if (pz_busy_reg && !pz1_reg && !pz2_reg) begin
        pz_busy_reg <= 1'b0;
    end
    pz1_reg <= pz_busy_reg && !pz_p_reg[3];
    pz1_p_reg <= pz_p_reg[2:0];
    pz1_en_reg <= pz_enable_reg[0];
    pz1_wire0_reg <= pz_q * line_byte_time[17:0];
    pz1_wire1_reg <= pz_q * line_byte_time[35:18];
    pz1_wire2_reg <= pz_q * line_byte_time[39:36];
    pz1_start_reg <= start_reg[64*pz_p_reg[2:0] +: 64];
    pz1_resume_reg <= resume_reg[64*pz_p_reg[2:0] +: 64];
    pz2_reg <= pz1_reg;
    pz2_p_reg <= pz1_p_reg;
    pz2_en_reg <= pz1_en_reg;
    // 64 bytes a quantum.
    pz2_resume_reg <= pz_time_fp + {pz_sum[57:0], 6'd0};
    pz2_keep_reg <= pz1_start_reg < pz_time_fp && pz_time_fp < pz1_resume_reg;

    // Settled cycles since the last change of what the stages read.
    // (An arrival changes a head, or the index after one, only to a list of
    // none or one; the rest come from registers, decide aside.)
    age_reg <= (arrive && (empty_reg[a_prio_reg] || one_reg[a_prio_reg])) || decide || m1_reg || fetch2_reg
               || m2_reg || (pz2_reg && pz2_en_reg) ? 3'd0 : (age_reg == SETTLED ? age_reg : age_reg + 1'b1);
    now_prev_reg <= now;

    if (rst) begin
        a_valid_reg <= 1'b0;
        a_arr_hot_reg <= 0;
        land_hot_reg <= 0;
        link_free_reg <= 64'd0;
        seq_reg <= 0;
        inflight_reg <= 2'd0;
        age_reg <= 3'd0;
        fresh_reg <= 0;
        free_wr_reg <= 0;
        free_rd_reg <= 0;
        spare_ok_reg <= 1'b0;
        spare_fetch_reg <= 1'b0;
        spare_land_reg <= 1'b0;
        fetch1_reg <= 1'b0;
        fetch2_reg <= 1'b0;
        s2_valid_reg <= 0;
        s3_valid_reg <= 0;
        s4_valid_reg <= 1'b0;
        s5_valid_reg <= 1'b0;
        caught_up_reg <= 1'b0;
        m1_reg <= 1'b0;
        m1_hot_reg <= 0;
        m2_reg <= 1'b0;
        pz_busy_reg <= 1'b0;
        pz1_reg <= 1'b0;
        pz2_reg <= 1'b0;
    end
end

// The output: a release (M1) or a drop into the FIFO, in decision order.
wire out_taken = out_valid_reg && m_rel_ready;
wire fifo_empty = fifo_wr_reg == fifo_rd_reg;
wire push = m1_reg || drop_valid;
wire [OUT_WIDTH-1:0] push_entry = m1_reg ? {m1_tick_reg, m1_qp_reg, m1_len_reg, 1'b0}
                                         : {drop_time, drop_qp, drop_len, 1'b1};
always @(posedge clk) begin
    if (push) begin
        fifo_mem[fifo_wr_reg[OUT_INDEX_WIDTH-1:0]] <= push_entry;
        fifo_wr_reg <= fifo_wr_reg + 1'b1;
    end
    if (out_taken) begin
        out_valid_reg <= 1'b0;
    end
    if (!fifo_empty && (!out_valid_reg || m_rel_ready)) begin
        out_reg <= fifo_mem[fifo_rd_reg[OUT_INDEX_WIDTH-1:0]];
        out_valid_reg <= 1'b1;
        fifo_rd_reg <= fifo_rd_reg + 1'b1;
    end
    out_count_reg <= out_count_reg + {{(OUT_INDEX_WIDTH+1){1'b0}}, decide || drop_valid}
                   - {{(OUT_INDEX_WIDTH+1){1'b0}}, out_taken};
    if (rst) begin
        fifo_wr_reg <= 0;
        fifo_rd_reg <= 0;
        out_valid_reg <= 1'b0;
        out_count_reg <= 0;
    end
end

reg [63:0] held_eligible_reg;
always @(posedge clk) begin
    held_eligible_reg <= in_eligible;
end

qp_state_ram #(.WIDTH(ENTRY_WIDTH), .DEPTH(DESC_COUNT), .ADDR_WIDTH(DIW), .COLUMN_WIDTH(4), .OUTPUT_REG(1))
entry_ram_inst (
    .clk(clk), .rd_en(1'b1), .rd_addr(m1_after_reg), .rd_data(entry_rd_data),
    .wr_en(arrive), .wr_addr(spare_reg), .wr_data(a_entry)
);
qp_state_ram #(.WIDTH(DIW), .DEPTH(DESC_COUNT), .ADDR_WIDTH(DIW), .COLUMN_WIDTH(4), .OUTPUT_REG(1))
link_ram_inst (
    .clk(clk), .rd_en(1'b1), .rd_addr(m1_after_reg), .rd_data(link_rd_data),
    .wr_en(arrive && !empty_reg[a_prio_reg]), .wr_addr(a_tail), .wr_data(spare_reg)
);
// Registered twice, beside the RAM (its index goes across the die to the
// entry and link RAMs' write ports).
qp_state_ram #(.WIDTH(DIW), .DEPTH(DESC_COUNT), .ADDR_WIDTH(DIW), .COLUMN_WIDTH(4), .OUTPUT_REG(1)) free_ram_inst (
    .clk(clk), .rd_en(spare_get), .rd_addr(free_rd_reg[DIW-1:0]), .rd_data(free_rd_data),
    .wr_en(m1_reg), .wr_addr(free_wr_reg[DIW-1:0]), .wr_data(m1_head_reg)
);

assign freed = {1'b0, a_valid_reg && !a_live_reg} + {1'b0, m1_reg};
// Registered: a cycle late, as what it says can change only with a new
// now, a packet on its way or a pause, each of which clears it first.
assign caught_up = caught_up_reg;
assign room = out_count_reg != CAPACITY;
assign idle = caught_up && !(drain_all && s5_valid_reg) && out_count_reg == 0;
assign next_valid = fresh && s5_valid_reg;
assign next_tick = s5_tick_reg;
assign held_eligible = held_eligible_reg;

wire [QP_INDEX_WIDTH-1:0] out_qp;
assign {m_rel_time, out_qp, m_rel_len, m_rel_drop} = out_reg;
assign m_rel_qp = {{(24-QP_INDEX_WIDTH){1'b0}}, out_qp};
assign m_rel_valid = out_valid_reg;

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
always @(posedge clk) begin
    if (!rst) begin
        assert (!(arrive && !spare_ok_reg))
        else metaroce_assertion_failed("pacer_egress: a packet arrived with no index ready");
        assert (!(drop_valid && (m1_reg || !caught_up)))
        else metaroce_assertion_failed("pacer_egress: a drop before the releases due before it");
        assert (!(pause_valid && pz_busy_reg))
        else metaroce_assertion_failed("pacer_egress: a pause while one is applied");
        assert (!(fetch_go && (fetch1_reg || fetch2_reg)))
        else metaroce_assertion_failed("pacer_egress: two head fetches at once");
        assert (a_arr_hot_reg == hot_if(arrive, a_prio_reg) && land_hot_reg == hot_if(fetch2_reg, fetch_p_reg)
                && m1_hot_reg == hot_if(m1_reg, m1_p_reg))
        else metaroce_assertion_failed("pacer_egress: the lists' registered one-hot enables out of step");
    end
end
`endif

endmodule

`resetall

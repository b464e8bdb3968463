// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "metaroce_cfg.vh"

/*
 * Pacer (SPEC.md §7): releases each QP's packets at the QP's rate.
 *
 * Carousel-style. A packet gets its eligible time when it is handed over:
 * GCRA on the QP's theoretical arrival time (TAT) with a burst allowance,
 * and a minimum gap to the QP's previous packet. It then waits in a timing
 * wheel of SLOT_COUNT slots of 2^SLOT_SHIFT ns, each a FIFO (linked list of
 * packet descriptors). The wheel is served in slot order, the first busy
 * slot found by a priority encoder over the slot-busy bits; a packet leaves
 * at its eligible time or when the link is free (aggregate line-rate cap),
 * whichever is later. Three levels: each level above 0 has as many slots,
 * each as wide as the whole level below (its horizon); a packet goes into
 * the lowest level whose horizon holds it (level 2's last slot beyond
 * that) and cascades down when time reaches its slot, higher levels first
 * among slots of the same start. Slot heads, tails and busy bits of all
 * levels share one array each, addressed {level, slot} (a fourth quarter
 * unused).
 *
 * Time is virtual, carried by the commands: a slot is served once a command
 * whose tick is at or past the slot's start is on offer (before that command
 * is taken), or while `flush` is high. The schedule so depends on the
 * commands alone, never on cycles.
 *
 * Times are ns in Q44.20; byte times ns per byte in Q20.20, rounded up so
 * no QP is paced faster than its rate. A rate change runs a 43-cycle
 * restoring division (8e6 * 2^20 / kb/s); a packet handed over takes 2
 * cycles, a cascade step 3; a release 1 while packets wait in the slots due
 * (the next decision is made in the cycle of a release), 2 after a pause
 * (at most one release per cycle).
 *
 * | port                | width | meaning                                       |
 * |---------------------|-------|-----------------------------------------------|
 * | cfg                 | CFG_W | registers (rtl/metaroce_cfg.vh); this module  |
 * |                     |       | reads burst_bytes, min_gap_ns (ns),           |
 * |                     |       | line_byte_time and start_byte_time (ns per    |
 * |                     |       | byte at line / start rate, Q20.20)            |
 * | s_cmd_time          | 64    | tick of the command; the highest seen is now  |
 * | s_cmd_qp            | 24    | QP (beyond QP_COUNT: ignored)                 |
 * | s_cmd_rate_valid    | 1     | s_cmd_rate is the QP's new rate               |
 * | s_cmd_rate          | 32    | kb/s (below 10 kb/s paces at 10 kb/s)         |
 * | s_cmd_send          | 1     | a packet of s_cmd_len bytes, paced at the      |
 * |                     |       | rate before this command's new rate           |
 * |                     |       | (neither rate nor send: a time advance)       |
 * | flush               | 1     | no more commands: serve every slot            |
 * | m_rel_time          | 64    | release tick (ns, rounded up), or the drop's  |
 * | m_rel_qp, m_rel_len | 24,17 | the packet                                    |
 * | m_rel_drop          | 1     | refused: DESC_COUNT packets already held      |
 * | busy                | 1     | packets held, or work in flight               |
 * | active              | 1     | work in flight (a step or a release on offer) |
 * | next_busy_valid     | 1     | idle, packets held: ...                       |
 * | next_busy_time      | 64    | ... the start tick of the first busy slot,    |
 * |                     |       | when a driver must next advance time          |
 *
 * QP RAM word: byte_time 40, tat 64, gap_ready 64. Descriptor RAM word:
 * qp, len 17, eligible 64; descriptor links, slot heads and tails are
 * small asynchronous-read RAMs (LUT RAM), one write port each.
 */
module roce_pacer #(
    parameter QP_COUNT = 4096,
    parameter SLOT_COUNT = 256,
    parameter SLOT_SHIFT = 6,
    parameter DESC_COUNT = 4096
) (
    input  wire         clk,
    input  wire         rst,

    input  wire [`CFG_WIDTH-1:0] cfg,

    input  wire         s_cmd_valid,
    output wire         s_cmd_ready,
    input  wire [63:0]  s_cmd_time,
    input  wire [23:0]  s_cmd_qp,
    input  wire         s_cmd_rate_valid,
    input  wire [31:0]  s_cmd_rate,
    input  wire         s_cmd_send,
    input  wire [16:0]  s_cmd_len,
    input  wire         flush,

    output wire         m_rel_valid,
    input  wire         m_rel_ready,
    output wire [63:0]  m_rel_time,
    output wire [23:0]  m_rel_qp,
    output wire [16:0]  m_rel_len,
    output wire         m_rel_drop,

    output wire         busy,
    output wire         active,
    output wire         next_busy_valid,
    output wire [63:0]  next_busy_time
);

// The registers this module reads: slices of the cfg bus (rtl/metaroce_cfg.vh).
wire [`CFG_BURST_BYTES_W-1:0] cfg_burst_bytes = cfg[`CFG_BURST_BYTES];
wire [`CFG_MIN_GAP_NS_W-1:0] cfg_min_gap = cfg[`CFG_MIN_GAP_NS];
wire [`CFG_LINE_BYTE_TIME_W-1:0] cfg_line_byte_time = cfg[`CFG_LINE_BYTE_TIME];
wire [`CFG_START_BYTE_TIME_W-1:0] cfg_start_byte_time = cfg[`CFG_START_BYTE_TIME];
// The other modules' registers.
wire unused_cfg = &{1'b0, cfg};

localparam QP_INDEX_WIDTH = QP_COUNT > 1 ? $clog2(QP_COUNT) : 1;
localparam SLOT_INDEX_WIDTH = $clog2(SLOT_COUNT);
localparam DESC_INDEX_WIDTH = $clog2(DESC_COUNT);
localparam FRAC_BITS = 20;
localparam QP_WORD_WIDTH = 40 + 64 + 64;
localparam DESC_WORD_WIDTH = QP_INDEX_WIDTH + 17 + 64;
localparam INIT_LAST = (QP_COUNT > DESC_COUNT ? QP_COUNT : DESC_COUNT) - 1;
// 8e6 ns per byte per kb/s, Q.20: the dividend of every byte time.
localparam [42:0] BYTE_TIME_NUMERATOR = 43'd8388608000000;
localparam [31:0] MIN_PACED_RATE = 32'd10;
// The last slot within the horizon, relative to the slot served.
localparam [63:0] HORIZON_SPAN = {32'd0, SLOT_COUNT[31:0] - 32'd1};
localparam [DESC_INDEX_WIDTH:0] DESC_FULL = DESC_COUNT[DESC_INDEX_WIDTH:0];

generate
    if (QP_COUNT < 1 || QP_COUNT > (1 << 24)) begin : g_bad_qp_count
        $error("roce_pacer: QP_COUNT must be 1..2^24");
    end
    if (SLOT_COUNT < 2 || (SLOT_COUNT & (SLOT_COUNT - 1)) != 0) begin : g_bad_slot_count
        $error("roce_pacer: SLOT_COUNT must be a power of 2, at least 2");
    end
    if (DESC_COUNT < 2 || (DESC_COUNT & (DESC_COUNT - 1)) != 0 || DESC_COUNT > (1 << 20)) begin : g_bad_desc_count
        $error("roce_pacer: DESC_COUNT must be a power of 2, 2..2^20");
    end
    if (SLOT_SHIFT < 0 || SLOT_SHIFT > 20) begin : g_bad_slot_shift
        $error("roce_pacer: SLOT_SHIFT must be 0..20");
    end
endgenerate

localparam [2:0]
    STATE_INIT = 3'd0,
    STATE_IDLE = 3'd1,
    STATE_DIVIDE = 3'd2,
    STATE_APPLY = 3'd3,
    STATE_POP = 3'd4,
    STATE_CASCADE = 3'd5,
    STATE_REINSERT = 3'd6;

reg [2:0] state_reg = STATE_INIT, state_next;
reg [31:0] init_addr_reg = 32'd0, init_addr_next;

// The command being applied.
reg [QP_INDEX_WIDTH-1:0] cmd_qp_reg;
reg        cmd_rate_valid_reg;
reg        cmd_send_reg;
reg [16:0] cmd_len_reg;

reg [63:0] watermark_reg = 64'd0, watermark_next;
// Absolute number of the slot being served.
reg [63:0] pointer_reg = 64'd0, pointer_next;
reg [63:0] link_free_reg = 64'd0, link_free_next;

reg [32:0] div_rem_reg, div_rem_next;
reg [42:0] div_quot_reg, div_quot_next;
reg [31:0] div_divisor_reg, div_divisor_next;
reg [5:0]  div_bit_reg, div_bit_next;

reg [DESC_INDEX_WIDTH-1:0] free_head_reg = 0, free_head_next;
reg [DESC_INDEX_WIDTH:0]   held_reg = 0, held_next;
// Busy bits, addressed {level, slot}.
reg [4*SLOT_COUNT-1:0]     slot_busy_reg = 0, slot_busy_next;
// The slot being served ({level, index}) and its head descriptor.
reg [SLOT_INDEX_WIDTH+1:0] pop_slot_reg, pop_slot_next;
reg [DESC_INDEX_WIDTH-1:0] pop_desc_reg, pop_desc_next;
reg [SLOT_INDEX_WIDTH+1:0] park_slot_reg, park_slot_next;

reg        m_rel_valid_reg = 1'b0, m_rel_valid_next;
reg [63:0] m_rel_time_reg, m_rel_time_next;
reg [23:0] m_rel_qp_reg, m_rel_qp_next;
reg [16:0] m_rel_len_reg, m_rel_len_next;
reg        m_rel_drop_reg, m_rel_drop_next;

assign m_rel_valid = m_rel_valid_reg;
assign m_rel_time = m_rel_time_reg;
assign m_rel_qp = m_rel_qp_reg;
assign m_rel_len = m_rel_len_reg;
assign m_rel_drop = m_rel_drop_reg;
assign active = state_reg != STATE_IDLE || m_rel_valid_reg;
assign busy = active || held_reg != 0;

wire out_free = !m_rel_valid_reg || m_rel_ready;

// RAMs: QP words and descriptors (block RAM, registered read).
reg                        qp_rd_en;
wire [QP_WORD_WIDTH-1:0]   qp_rd_data;
reg                        qp_wr_en;
reg [QP_INDEX_WIDTH-1:0]   qp_wr_addr;
reg [QP_WORD_WIDTH-1:0]    qp_wr_data;
reg                        desc_rd_en;
reg [DESC_INDEX_WIDTH-1:0] desc_rd_addr;
wire [DESC_WORD_WIDTH-1:0] desc_rd_data;
reg                        desc_wr_en;

qp_state_ram #(
    .WIDTH(QP_WORD_WIDTH),
    .DEPTH(QP_COUNT),
    .ADDR_WIDTH(QP_INDEX_WIDTH)
) qp_ram_inst (
    .clk(clk),
    .rd_en(qp_rd_en),
    .rd_addr(s_cmd_qp[QP_INDEX_WIDTH-1:0]),
    .rd_data(qp_rd_data),
    .wr_en(qp_wr_en),
    .wr_addr(qp_wr_addr),
    .wr_data(qp_wr_data)
);

// Links, slot heads and tails: LUT RAM, read asynchronously.
reg [DESC_INDEX_WIDTH-1:0] desc_next_mem [0:DESC_COUNT-1];
reg [DESC_INDEX_WIDTH-1:0] slot_head_mem [0:4*SLOT_COUNT-1];
reg [DESC_INDEX_WIDTH-1:0] slot_tail_mem [0:4*SLOT_COUNT-1];
reg                        link_wr_en;
reg [DESC_INDEX_WIDTH-1:0] link_wr_addr;
reg [DESC_INDEX_WIDTH-1:0] link_wr_data;
reg                        head_wr_en;
reg [SLOT_INDEX_WIDTH+1:0] head_wr_addr;
reg [DESC_INDEX_WIDTH-1:0] head_wr_data;
reg                        tail_wr_en;
reg [SLOT_INDEX_WIDTH+1:0] tail_wr_addr;

// The first busy slot of a level at or after the pointer's: the level's
// busy bits rotated to it, then a priority encoder.
function [SLOT_INDEX_WIDTH-1:0] first_set(input [SLOT_COUNT-1:0] bits);
    integer i;
    begin
        first_set = {SLOT_INDEX_WIDTH{1'b0}};
        for (i = SLOT_COUNT - 1; i >= 0; i = i - 1) begin
            if (bits[i]) begin
                first_set = i[SLOT_INDEX_WIDTH-1:0];
            end
        end
    end
endfunction

// The pointer in each level's units, each level's first busy slot (in its
// units) and its start (in level-0 slots).
wire [63:0] at1 = pointer_reg >> SLOT_INDEX_WIDTH;
wire [63:0] at2 = pointer_reg >> (2 * SLOT_INDEX_WIDTH);
// While a release empties its slot, the next decision is made in the same
// cycle without that slot.
wire pop_empties = state_reg == STATE_POP && slot_tail_mem[pop_slot_reg] == pop_desc_reg;
wire [3*SLOT_COUNT-1:0] busy_left = slot_busy_reg[3*SLOT_COUNT-1:0]
                                    & ~({{(3*SLOT_COUNT-1){1'b0}}, pop_empties} << pop_slot_reg);
wire [SLOT_COUNT-1:0] busy0 = busy_left[0 +: SLOT_COUNT];
wire [SLOT_COUNT-1:0] busy1 = busy_left[SLOT_COUNT +: SLOT_COUNT];
wire [SLOT_COUNT-1:0] busy2 = busy_left[2*SLOT_COUNT +: SLOT_COUNT];
wire [2*SLOT_COUNT-1:0] busy0_twice = {busy0, busy0};
wire [2*SLOT_COUNT-1:0] busy1_twice = {busy1, busy1};
wire [2*SLOT_COUNT-1:0] busy2_twice = {busy2, busy2};
wire [63:0] first0 = pointer_reg + {{(64-SLOT_INDEX_WIDTH){1'b0}},
                                    first_set(busy0_twice[{1'b0, pointer_reg[SLOT_INDEX_WIDTH-1:0]} +: SLOT_COUNT])};
wire [63:0] first1 = at1 + {{(64-SLOT_INDEX_WIDTH){1'b0}},
                            first_set(busy1_twice[{1'b0, at1[SLOT_INDEX_WIDTH-1:0]} +: SLOT_COUNT])};
wire [63:0] first2 = at2 + {{(64-SLOT_INDEX_WIDTH){1'b0}},
                            first_set(busy2_twice[{1'b0, at2[SLOT_INDEX_WIDTH-1:0]} +: SLOT_COUNT])};
wire        any0 = |busy0;
wire        any1 = |busy1;
wire        any2 = |busy2;
wire [63:0] start1 = first1 << SLOT_INDEX_WIDTH;
wire [63:0] start2 = first2 << (2 * SLOT_INDEX_WIDTH);
// The next slot to serve: the earliest start, the higher level on a tie.
wire        pick2 = any2 && (!any1 || start2 <= start1) && (!any0 || start2 <= first0);
wire        pick1 = !pick2 && any1 && (!any0 || start1 <= first0);
wire [63:0] next_slot = pick2 ? start2 : (pick1 ? start1 : first0);
assign next_busy_valid = state_reg == STATE_IDLE && (any0 || any1 || any2);
assign next_busy_time = next_slot << SLOT_SHIFT;
wire [SLOT_INDEX_WIDTH+1:0] next_addr = pick2 ? {2'd2, first2[SLOT_INDEX_WIDTH-1:0]}
                                      : (pick1 ? {2'd1, first1[SLOT_INDEX_WIDTH-1:0]}
                                               : {2'd0, first0[SLOT_INDEX_WIDTH-1:0]});

// Where a packet whose eligible time is in level-0 slot `target` goes: the
// lowest level whose horizon holds it, else level 2's last slot.
function [SLOT_INDEX_WIDTH+1:0] place(input [63:0] target, input [63:0] pointer);
    reg [63:0] target1;
    reg [63:0] target2;
    reg [63:0] last2;
    begin
        target1 = target >> SLOT_INDEX_WIDTH;
        target2 = target >> (2 * SLOT_INDEX_WIDTH);
        last2 = (pointer >> (2 * SLOT_INDEX_WIDTH)) + HORIZON_SPAN;
        if (target <= pointer + HORIZON_SPAN) begin
            place = {2'd0, target[SLOT_INDEX_WIDTH-1:0]};
        end else if (target1 <= (pointer >> SLOT_INDEX_WIDTH) + HORIZON_SPAN) begin
            place = {2'd1, target1[SLOT_INDEX_WIDTH-1:0]};
        end else if (target2 <= last2) begin
            place = {2'd2, target2[SLOT_INDEX_WIDTH-1:0]};
        end else begin
            place = {2'd2, last2[SLOT_INDEX_WIDTH-1:0]};
        end
    end
endfunction

// Serve before taking the command on offer when the slot starts by its tick.
wire [63:0] cmd_now = s_cmd_time > watermark_reg ? s_cmd_time : watermark_reg;
wire        serve = (any0 || any1 || any2) && (s_cmd_valid ? next_slot <= (cmd_now >> SLOT_SHIFT) : flush);
assign s_cmd_ready = state_reg == STATE_IDLE && !serve;
// The level-0 slot being served (at the pointer) may go on.
wire        serve_again = s_cmd_valid ? pointer_reg <= (cmd_now >> SLOT_SHIFT) : flush;
wire        cmd_take = s_cmd_valid && s_cmd_ready;
// A command with neither a rate nor a packet only moves time on.
wire        cmd_touches_qp = {8'd0, s_cmd_qp} < QP_COUNT && (s_cmd_rate_valid || s_cmd_send);

// The restoring division, one quotient bit per cycle.
wire [32:0] div_shifted = {div_rem_reg[31:0], BYTE_TIME_NUMERATOR[div_bit_reg]};
wire        div_fits = div_shifted >= {1'b0, div_divisor_reg};
// The quotient rounded up: the byte time never undercuts the rate.
/* verilator lint_off UNUSEDSIGNAL */
wire [42:0] div_quot_up = div_quot_reg + {42'd0, div_rem_reg != 33'd0};
/* verilator lint_on UNUSEDSIGNAL */
wire [39:0] div_byte_time = div_quot_up[39:0];

// The QP RAM word, packed here and unpacked below, nowhere else.
function [QP_WORD_WIDTH-1:0] qp_word(input [39:0] byte_time, input [63:0] tat, input [63:0] gap_ready);
    qp_word = {byte_time, tat, gap_ready};
endfunction

// A packet handed over: its eligible time and the QP's state after it.
wire [39:0] qp_byte_time;
wire [63:0] qp_tat;
wire [63:0] qp_gap_ready;
assign {qp_byte_time, qp_tat, qp_gap_ready} = qp_rd_data;
/* verilator lint_off UNUSEDSIGNAL */
wire [55:0] burst_time = cfg_burst_bytes * qp_byte_time;
wire [56:0] send_cost = cmd_len_reg * qp_byte_time;
/* verilator lint_on UNUSEDSIGNAL */
wire [63:0] now_fp = watermark_reg << FRAC_BITS;
wire [63:0] tat_less_burst = qp_tat >= {8'd0, burst_time} ? qp_tat - {8'd0, burst_time} : 64'd0;
wire [63:0] eligible_a = now_fp > tat_less_burst ? now_fp : tat_less_burst;
wire [63:0] eligible = eligible_a > qp_gap_ready ? eligible_a : qp_gap_ready;
wire [63:0] tat_after = (qp_tat > eligible ? qp_tat : eligible) + {7'd0, send_cost};
wire [63:0] gap_ready_after = eligible + {12'd0, cfg_min_gap, {FRAC_BITS{1'b0}}};
wire [SLOT_INDEX_WIDTH+1:0] send_addr = place(eligible >> (FRAC_BITS + SLOT_SHIFT), pointer_reg);
wire        pool_full = held_reg == DESC_FULL;

// A packet served: park it on, or release it.
wire [QP_INDEX_WIDTH-1:0] pop_qp;
wire [16:0] pop_len;
wire [63:0] pop_eligible;
assign {pop_qp, pop_len, pop_eligible} = desc_rd_data;
wire [SLOT_INDEX_WIDTH+1:0] cascade_addr = place(pop_eligible >> (FRAC_BITS + SLOT_SHIFT), pointer_reg);
wire [63:0] leave = pop_eligible > link_free_reg ? pop_eligible : link_free_reg;
/* verilator lint_off UNUSEDSIGNAL */
wire [56:0] wire_time = pop_len * cfg_line_byte_time;
/* verilator lint_on UNUSEDSIGNAL */
wire [63:0] leave_tick = (leave >> FRAC_BITS) + {63'd0, leave[FRAC_BITS-1:0] != 0};

// The next slot is served this cycle.
reg                        decide;

// One insert port: a descriptor onto a slot's tail.
reg                        ins_en;
reg [SLOT_INDEX_WIDTH+1:0] ins_addr;
reg [DESC_INDEX_WIDTH-1:0] ins_desc;

always @* begin
    state_next = state_reg;
    init_addr_next = init_addr_reg;
    watermark_next = watermark_reg;
    pointer_next = pointer_reg;
    link_free_next = link_free_reg;
    div_rem_next = div_rem_reg;
    div_quot_next = div_quot_reg;
    div_divisor_next = div_divisor_reg;
    div_bit_next = div_bit_reg;
    free_head_next = free_head_reg;
    held_next = held_reg;
    slot_busy_next = slot_busy_reg;
    pop_slot_next = pop_slot_reg;
    pop_desc_next = pop_desc_reg;
    park_slot_next = park_slot_reg;

    m_rel_valid_next = m_rel_valid_reg && !m_rel_ready;
    m_rel_time_next = m_rel_time_reg;
    m_rel_qp_next = m_rel_qp_reg;
    m_rel_len_next = m_rel_len_reg;
    m_rel_drop_next = m_rel_drop_reg;

    qp_rd_en = 1'b0;
    qp_wr_en = 1'b0;
    qp_wr_addr = cmd_qp_reg;
    qp_wr_data = qp_word(qp_byte_time, qp_tat, qp_gap_ready);
    desc_rd_en = 1'b0;
    desc_rd_addr = slot_head_mem[next_addr];
    desc_wr_en = 1'b0;
    link_wr_en = 1'b0;
    link_wr_addr = pop_desc_reg;
    link_wr_data = free_head_reg;
    head_wr_en = 1'b0;
    head_wr_addr = pop_slot_reg;
    head_wr_data = desc_next_mem[pop_desc_reg];
    ins_en = 1'b0;
    ins_addr = send_addr;
    decide = 1'b0;
    ins_desc = free_head_reg;

    case (state_reg)
        STATE_INIT: begin
            // Every QP at the start rate; every descriptor on the free list.
            if (init_addr_reg < QP_COUNT) begin
                qp_wr_en = 1'b1;
                qp_wr_addr = init_addr_reg[QP_INDEX_WIDTH-1:0];
                qp_wr_data = qp_word(cfg_start_byte_time, 64'd0, 64'd0);
            end
            if (init_addr_reg < DESC_COUNT) begin
                link_wr_en = 1'b1;
                link_wr_addr = init_addr_reg[DESC_INDEX_WIDTH-1:0];
                link_wr_data = init_addr_reg[DESC_INDEX_WIDTH-1:0] + 1'b1;
            end
            init_addr_next = init_addr_reg + 1'b1;
            if (init_addr_reg == INIT_LAST) begin
                state_next = STATE_IDLE;
            end
        end
        STATE_IDLE: begin
            if (serve) begin
                decide = 1'b1;
            end else if (cmd_take) begin
                watermark_next = cmd_now;
                if ((cmd_now >> SLOT_SHIFT) > pointer_reg) begin
                    pointer_next = cmd_now >> SLOT_SHIFT;
                end
                qp_rd_en = cmd_touches_qp;
                div_rem_next = 33'd0;
                div_quot_next = 43'd0;
                div_divisor_next = s_cmd_rate < MIN_PACED_RATE ? MIN_PACED_RATE : s_cmd_rate;
                div_bit_next = 6'd42;
                if (!cmd_touches_qp) begin
                    state_next = STATE_IDLE;
                end else if (s_cmd_rate_valid) begin
                    state_next = STATE_DIVIDE;
                end else begin
                    state_next = STATE_APPLY;
                end
            end
        end
        STATE_DIVIDE: begin
            div_rem_next = div_fits ? div_shifted - {1'b0, div_divisor_reg} : div_shifted;
            div_quot_next = {div_quot_reg[41:0], div_fits};
            div_bit_next = div_bit_reg - 1'b1;
            if (div_bit_reg == 6'd0) begin
                state_next = STATE_APPLY;
            end
        end
        STATE_APPLY: begin
            // The packet at the rate so far, then the new rate.
            if (cmd_send_reg && pool_full) begin
                if (out_free) begin
                    m_rel_valid_next = 1'b1;
                    m_rel_time_next = watermark_reg;
                    m_rel_qp_next = {{(24-QP_INDEX_WIDTH){1'b0}}, cmd_qp_reg};
                    m_rel_len_next = cmd_len_reg;
                    m_rel_drop_next = 1'b1;
                    qp_wr_en = cmd_rate_valid_reg;
                    qp_wr_data = qp_word(div_byte_time, qp_tat, qp_gap_ready);
                    state_next = STATE_IDLE;
                end
            end else begin
                qp_wr_en = 1'b1;
                qp_wr_data = qp_word(cmd_rate_valid_reg ? div_byte_time : qp_byte_time,
                                     cmd_send_reg ? tat_after : qp_tat,
                                     cmd_send_reg ? gap_ready_after : qp_gap_ready);
                if (cmd_send_reg) begin
                    desc_wr_en = 1'b1;
                    ins_en = 1'b1;
                    free_head_next = desc_next_mem[free_head_reg];
                    held_next = held_reg + 1'b1;
                end
                state_next = STATE_IDLE;
            end
        end
        STATE_CASCADE: begin
            // Unlink the head of a level above 0; it goes down next.
            head_wr_en = 1'b1;
            if (slot_tail_mem[pop_slot_reg] == pop_desc_reg) begin
                slot_busy_next[pop_slot_reg] = 1'b0;
            end
            park_slot_next = cascade_addr;
            state_next = STATE_REINSERT;
        end
        STATE_POP: begin
            if (out_free) begin
                // Unlink the head from its slot and release it.
                head_wr_en = 1'b1;
                if (slot_tail_mem[pop_slot_reg] == pop_desc_reg) begin
                    slot_busy_next[pop_slot_reg] = 1'b0;
                end
                link_free_next = leave + {7'd0, wire_time};
                m_rel_valid_next = 1'b1;
                m_rel_time_next = leave_tick;
                m_rel_qp_next = {{(24-QP_INDEX_WIDTH){1'b0}}, pop_qp};
                m_rel_len_next = pop_len;
                m_rel_drop_next = 1'b0;
                // Back onto the free list.
                link_wr_en = 1'b1;
                free_head_next = pop_desc_reg;
                held_next = held_reg - 1'b1;
                state_next = STATE_IDLE;
                if (!pop_empties && serve_again) begin
                    // The slot's next packet, back to back: nothing can come
                    // before it, so no decision is needed.
                    pop_desc_next = desc_next_mem[pop_desc_reg];
                    desc_rd_en = 1'b1;
                    desc_rd_addr = desc_next_mem[pop_desc_reg];
                    state_next = STATE_POP;
                end else if (pop_empties && serve) begin
                    // The slot is done: the next decision, in this cycle.
                    decide = 1'b1;
                end
            end
        end
        STATE_REINSERT: begin
            ins_en = 1'b1;
            ins_addr = park_slot_reg;
            ins_desc = pop_desc_reg;
            state_next = STATE_IDLE;
        end
        default: state_next = STATE_IDLE;
    endcase

    // A decision: serve the next slot (release or cascade its head).
    if (decide) begin
        if (next_slot > pointer_reg) begin
            pointer_next = next_slot;
        end
        pop_slot_next = next_addr;
        pop_desc_next = slot_head_mem[next_addr];
        desc_rd_en = 1'b1;
        state_next = (pick1 || pick2) ? STATE_CASCADE : STATE_POP;
    end

    tail_wr_en = ins_en;
    tail_wr_addr = ins_addr;
    if (ins_en) begin
        if (slot_busy_reg[ins_addr]) begin
            link_wr_en = 1'b1;
            link_wr_addr = slot_tail_mem[ins_addr];
            link_wr_data = ins_desc;
        end else begin
            head_wr_en = 1'b1;
            head_wr_addr = ins_addr;
            head_wr_data = ins_desc;
            slot_busy_next[ins_addr] = 1'b1;
        end
    end
end

qp_state_ram #(
    .WIDTH(DESC_WORD_WIDTH),
    .DEPTH(DESC_COUNT),
    .ADDR_WIDTH(DESC_INDEX_WIDTH)
) desc_ram_inst (
    .clk(clk),
    .rd_en(desc_rd_en),
    .rd_addr(desc_rd_addr),
    .rd_data(desc_rd_data),
    .wr_en(desc_wr_en),
    .wr_addr(free_head_reg),
    .wr_data({cmd_qp_reg, cmd_len_reg, eligible})
);

always @(posedge clk) begin
    if (link_wr_en) begin
        desc_next_mem[link_wr_addr] <= link_wr_data;
    end
    if (head_wr_en) begin
        slot_head_mem[head_wr_addr] <= head_wr_data;
    end
    if (tail_wr_en) begin
        slot_tail_mem[tail_wr_addr] <= ins_desc;
    end
end

always @(posedge clk) begin
    state_reg <= state_next;
    init_addr_reg <= init_addr_next;
    watermark_reg <= watermark_next;
    pointer_reg <= pointer_next;
    link_free_reg <= link_free_next;
    div_rem_reg <= div_rem_next;
    div_quot_reg <= div_quot_next;
    div_divisor_reg <= div_divisor_next;
    div_bit_reg <= div_bit_next;
    free_head_reg <= free_head_next;
    held_reg <= held_next;
    slot_busy_reg <= slot_busy_next;
    pop_slot_reg <= pop_slot_next;
    pop_desc_reg <= pop_desc_next;
    park_slot_reg <= park_slot_next;

    m_rel_valid_reg <= m_rel_valid_next;
    m_rel_time_reg <= m_rel_time_next;
    m_rel_qp_reg <= m_rel_qp_next;
    m_rel_len_reg <= m_rel_len_next;
    m_rel_drop_reg <= m_rel_drop_next;

    if (cmd_take) begin
        cmd_qp_reg <= s_cmd_qp[QP_INDEX_WIDTH-1:0];
        cmd_rate_valid_reg <= s_cmd_rate_valid;
        cmd_send_reg <= s_cmd_send;
        cmd_len_reg <= s_cmd_len;
    end

    if (rst) begin
        state_reg <= STATE_INIT;
        init_addr_reg <= 32'd0;
        watermark_reg <= 64'd0;
        pointer_reg <= 64'd0;
        link_free_reg <= 64'd0;
        free_head_reg <= {DESC_INDEX_WIDTH{1'b0}};
        held_reg <= {(DESC_INDEX_WIDTH+1){1'b0}};
        slot_busy_reg <= {(4*SLOT_COUNT){1'b0}};
        m_rel_valid_reg <= 1'b0;
    end
end

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
reg [63:0] last_release_reg = 64'd0;
always @(posedge clk) begin
    if (rst) begin
        last_release_reg <= 64'd0;
    end else if (m_rel_valid_reg && m_rel_ready && !m_rel_drop_reg) begin
        last_release_reg <= m_rel_time_reg;
        assert (m_rel_time_reg >= last_release_reg)
        else metaroce_assertion_failed("roce_pacer: a release before the previous one");
    end
    if (!rst) begin
        assert (held_reg <= DESC_FULL)
        else metaroce_assertion_failed("roce_pacer: more packets held than descriptors");
        assert (held_reg != 0 || slot_busy_reg == 0)
        else metaroce_assertion_failed("roce_pacer: a busy slot with no packet held");
    end
end
`endif

endmodule

`resetall

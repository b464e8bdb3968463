// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Test bench of rtl/qp_state_ram.v with OUTPUT_REG 1 (Icarus Verilog):
 * writes every word, then SEED's random reads and writes (never a read of
 * the address written in its cycle, whose word is undefined), and prints
 * the read data of every cycle. cosim/tests/rtl_hygiene.rs runs it as
 * simulators build the RAM (inferred) and with METAROCE_ECP5 (the DP16KD
 * form, over cosim/rtl_test/ecp5_dp16kd.v) and compares the two.
 * Addresses mix a few high parts (0, 1, all ones, the top bit) with random
 * low bits, so that a wrong address bit shows as one word seen at two.
 */
module qp_state_ram_tb #(
    parameter WIDTH = 40,
    parameter DEPTH = 4096,
    parameter COLUMN_WIDTH = 4,
    parameter CYCLES = 20000,
    parameter SEED = 1
);

localparam ADDR_WIDTH = $clog2(DEPTH);

reg                  clk = 1'b0;
reg                  rd_en = 1'b0, wr_en = 1'b0;
reg [ADDR_WIDTH-1:0] rd_addr = 0, wr_addr = 0;
reg [WIDTH-1:0]      wr_data = 0;
wire [WIDTH-1:0]     rd_data;

qp_state_ram #(
    .WIDTH(WIDTH),
    .DEPTH(DEPTH),
    .ADDR_WIDTH(ADDR_WIDTH),
    .COLUMN_WIDTH(COLUMN_WIDTH),
    .OUTPUT_REG(1)
) dut (
    .clk(clk),
    .rd_en(rd_en),
    .rd_addr(rd_addr),
    .rd_data(rd_data),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data)
);

integer seed = SEED;
integer cycle;

function [ADDR_WIDTH-1:0] pick_addr(input integer high, input integer low);
    reg [ADDR_WIDTH-1:0] base;
    begin
        case (high & 3)
            0: base = 0;
            1: base = 1 << 5;
            2: base = {ADDR_WIDTH{1'b1}};
            default: base = 1 << (ADDR_WIDTH - 1);
        endcase
        pick_addr = (base & ~31) | (low & 31);
    end
endfunction

function [WIDTH-1:0] random_word(input integer dummy);
    integer k;
    begin
        random_word = 0;
        for (k = 0; k < WIDTH; k = k + 32) begin
            random_word = (random_word << 32) | $unsigned($random(seed));
        end
        random_word = random_word ^ dummy;
    end
endfunction

task tick;
    begin
        #5 clk = 1'b1;
        #5 clk = 1'b0;
    end
endtask

initial begin
    // Every word written first, so that no read returns an unwritten one
    // (word 0 read meanwhile, so that the read data is a word from the
    // start).
    for (cycle = 0; cycle < DEPTH; cycle = cycle + 1) begin
        rd_en = cycle != 0;
        wr_en = 1'b1;
        wr_addr = cycle;
        wr_data = random_word(cycle);
        tick;
    end
    wr_en = 1'b0;
    for (cycle = 0; cycle < CYCLES; cycle = cycle + 1) begin
        rd_en = ($random(seed) & 3) != 0;
        rd_addr = pick_addr($random(seed), $random(seed));
        wr_en = ($random(seed) & 1) != 0;
        wr_addr = pick_addr($random(seed), $random(seed));
        wr_data = random_word(cycle);
        if (rd_en && wr_en && rd_addr == wr_addr) begin
            wr_en = 1'b0;
        end
        tick;
        $display("%0d %h", cycle, rd_data);
    end
    $finish;
end

endmodule

`resetall

// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Skid buffer (the register slice of verilog-axis `axis_register`, type 2):
 * a valid/ready channel of WIDTH bits through two registers, with
 * `s_ready` and every output from a register. No combinational path goes
 * through it, so the blocks on either side of it time apart
 * (roce_pipeline.v's boundaries). One transfer per cycle, one cycle of
 * latency.
 *
 * | port     | width | meaning                        |
 * |----------|-------|--------------------------------|
 * | s_*      | WIDTH | input channel                  |
 * | m_*      | WIDTH | output channel                 |
 * | busy     | 1     | a transfer is inside           |
 */
module roce_skid #(
    parameter WIDTH = 8
) (
    input  wire             clk,
    input  wire             rst,

    input  wire             s_valid,
    output wire             s_ready,
    input  wire [WIDTH-1:0] s_data,

    output wire             m_valid,
    input  wire             m_ready,
    output wire [WIDTH-1:0] m_data,

    output wire             busy
);

reg             s_ready_reg = 1'b0;
reg             m_valid_reg = 1'b0, m_valid_next;
reg [WIDTH-1:0] m_data_reg;
reg             temp_valid_reg = 1'b0, temp_valid_next;
reg [WIDTH-1:0] temp_data_reg;
reg             store_input_to_output;
reg             store_input_to_temp;
reg             store_temp_to_output;

// Ready next cycle when the output is taken, or when neither register
// will be holding a transfer.
wire s_ready_early = m_ready || (!temp_valid_reg && (!m_valid_reg || !s_valid));

always @* begin
    m_valid_next = m_valid_reg;
    temp_valid_next = temp_valid_reg;
    store_input_to_output = 1'b0;
    store_input_to_temp = 1'b0;
    store_temp_to_output = 1'b0;
    if (s_ready_reg) begin
        if (m_ready || !m_valid_reg) begin
            m_valid_next = s_valid;
            store_input_to_output = 1'b1;
        end else begin
            temp_valid_next = s_valid;
            store_input_to_temp = 1'b1;
        end
    end else if (m_ready) begin
        m_valid_next = temp_valid_reg;
        temp_valid_next = 1'b0;
        store_temp_to_output = 1'b1;
    end
end

always @(posedge clk) begin
    s_ready_reg <= s_ready_early;
    m_valid_reg <= m_valid_next;
    temp_valid_reg <= temp_valid_next;
    if (store_input_to_output) begin
        m_data_reg <= s_data;
    end else if (store_temp_to_output) begin
        m_data_reg <= temp_data_reg;
    end
    if (store_input_to_temp) begin
        temp_data_reg <= s_data;
    end
    if (rst) begin
        s_ready_reg <= 1'b0;
        m_valid_reg <= 1'b0;
        temp_valid_reg <= 1'b0;
    end
end

assign s_ready = s_ready_reg;
assign m_valid = m_valid_reg;
assign m_data = m_data_reg;
assign busy = m_valid_reg || temp_valid_reg;

endmodule

`resetall

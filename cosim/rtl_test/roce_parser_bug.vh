// SPDX-License-Identifier: MIT
/*
 * TEST ONLY, never in a real build: the body of `roce_parser_bug`, the
 * parser with three deliberate bugs on its record, the `Vparser64Bug` model
 * the harness's own tests must catch (cosim/tests/harness.rs,
 * cosim/tests/robustness.rs). cosim/build.rs wraps it into a module with
 * rtl/roce_parser.v's own parameters and ports, around an unchanged
 * roce_parser instance: every port passes through except those this body
 * names `parser_<port>`, which connect the instance to this logic instead.
 *
 *  - RC RDMA WRITE Only (0x0A): the low DestQP bit flips (a field mismatch).
 *  - RC RDMA WRITE Only with immediate (0x0B): the error code is 31, which
 *    no class has (an assertion fires).
 *  - RC RDMA READ request (0x0C): the record is taken from the parser but
 *    never offered (the harness reports the RTL stalled).
 */

`include "metaroce_defs.vh"

wire lost = m_meta_bth_valid && m_meta_opcode == 8'h0C;
assign m_meta_valid = parser_m_meta_valid && !lost;
assign parser_m_meta_ready = m_meta_ready || lost;
assign m_meta_dest_qp = parser_m_meta_dest_qp ^ {23'd0, m_meta_opcode == 8'h0A};
assign m_meta_error = m_meta_opcode == 8'h0B && m_meta_bth_valid ? 5'd31 : parser_m_meta_error;

`ifdef METAROCE_ASSERTIONS
// The parser checks its own record; the one leaving here is checked again.
import "DPI-C" function void metaroce_assertion_failed(input string message);

always @(posedge clk) begin
    if (!rst && m_meta_valid) begin
        assert ((m_meta_error == ERR_NONE) == (m_meta_frame_class != CLASS_ERROR))
            else metaroce_assertion_failed("record: error code and class disagree");
        assert (m_meta_error <= ERR_LAST) else metaroce_assertion_failed("record: unknown error code");
    end
end
`endif

// Sources of the parser, top first, from the workspace root:
// `verilator -f` and `iverilog -f` take the list whole; the readers that take
// files only (Yosys read_verilog, ci/*.sh, build.rs) skip the `+` lines.
+incdir+rtl
rtl/roce_parser.v
rtl/roce_parser_icrc.v
rtl/roce_parser_check.v
rtl/crc32_lfsr.v
rtl/roce_opcode_decode.v

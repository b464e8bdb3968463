// Sources of the parser, top first (verilator -f / yosys read_verilog).
rtl/roce_parser.v
rtl/roce_parser_icrc.v
rtl/roce_parser_check.v
rtl/crc32_lfsr.v
rtl/roce_opcode_decode.v

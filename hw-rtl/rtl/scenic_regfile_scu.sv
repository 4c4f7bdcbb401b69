// SPDX-License-Identifier: MIT
// The SCU block's registers (regmap block "scu", docs/register-map.md): scenic_regfile with the
// block's generated table from scenic_regs_pkg. TYPE, VERSION, NEXT and the capability registers
// (NUM_SLOTS .. SLOT_LOADED below 0x100 that are constants of the design: all but SLOT_BUSY and
// SLOT_LOADED) read their reset values; SLOT_BUSY, SLOT_LOADED, SLOT_STATE[n] and SLOT_KIND[n]
// come from the slot manager (hw_ro); SLOT_IRQ_STATUS[n] is w1c (set by the slots' interrupt
// lines, hw_set); SLOT_IRQ_MASK[n] is rw (q).
module scenic_regfile_scu #(
    parameter int unsigned CNT_W = 32,
    localparam int unsigned N = scenic_regs_pkg::SCU_REGS_N
) (
    input  logic             clk,
    input  logic             rst,
    input  logic             req_valid,
    input  logic             req_write,
    input  logic [11:0]      req_addr,
    input  logic [31:0]      req_wdata,
    output logic             rsp_valid,
    output logic [31:0]      rsp_rdata,
    input  logic [N*32-1:0]  hw_ro,
    input  logic [N*32-1:0]  hw_set,
    output logic [N*32-1:0]  q,
    output logic [N*32-1:0]  w1s_pulse,
    output logic [N-1:0]     wr_pulse,
    output logic [CNT_W-1:0] stat_unmapped
);

  // entries whose ro bits are design constants: every register below 0x100 except the two live
  // slot bitmaps
  function automatic logic [N-1:0] ro_const();
    logic [N-1:0] m;
    logic [11:0]  off;
    m = '0;
    for (int i = 0; i < N; i++) begin
      off = scenic_regs_pkg::SCU_REGS_OFF[i*12 +: 12];
      m[i] = off < 12'h100 && off != scenic_regs_pkg::SCU_SLOT_BUSY &&
             off != scenic_regs_pkg::SCU_SLOT_LOADED;
    end
    ro_const = m;
  endfunction

  scenic_regfile #(
      .N(N),
      .OFFS(scenic_regs_pkg::SCU_REGS_OFF),
      .RESET(scenic_regs_pkg::SCU_REGS_RESET),
      .RO(scenic_regs_pkg::SCU_REGS_RO),
      .RW(scenic_regs_pkg::SCU_REGS_RW),
      .W1C(scenic_regs_pkg::SCU_REGS_W1C),
      .W1S(scenic_regs_pkg::SCU_REGS_W1S),
      .WO(scenic_regs_pkg::SCU_REGS_WO),
      .RO_CONST(ro_const()),
      .CNT_W(CNT_W)
  ) u_rf (
      .clk(clk),
      .rst(rst),
      .req_valid(req_valid),
      .req_write(req_write),
      .req_addr(req_addr),
      .req_wdata(req_wdata),
      .rsp_valid(rsp_valid),
      .rsp_rdata(rsp_rdata),
      .hw_ro(hw_ro),
      .hw_set(hw_set),
      .q(q),
      .w1s_pulse(w1s_pulse),
      .wr_pulse(wr_pulse),
      .stat_unmapped(stat_unmapped)
  );

endmodule

// SPDX-License-Identifier: MIT
// Per-QP SQ completion counters written into each QP's status page (SCENIC paper section 7.2:
// completion counters per QP, incremented atomically by the hardware and polled by the host).
//
// Layout (the card's contract, uapi/scenic_rdma.h struct scenic_qp_status): every QP has its own
// status page in host memory at the address CREATE_QP gave; its u64 SQ completion counter sits at
// scenic_regs_pkg::QP_STATUS_SQ_COMPLETED_OFF. The page address of each QP lives in a table that
// the command path writes through the cfg port (CREATE_QP: the page; DESTROY_QP: 0; a transition
// to RESET: the same page again). A cfg write also zeroes the QP's counter (a QP starts, and
// restarts in RESET, with sq_completed 0). A QP whose table entry is 0 has no page: its events
// still count but write nothing (stat_nopage).
//
// Completion events (s_ev_qpn, s_ev_cnt completions) add to the QP's 64-bit counter (wrapping);
// every update is written back as one 8-byte write of the new value to page + offset, so the host
// only ever sees whole, monotonically increasing values (one writer per address).
//
// Storage: counters and page table are two QPS-deep RAMs with one synchronous read port (read at
// the event's handshake) and one write port (BRAM-inferable, no reset). Pipeline: accept (RAM
// read) -> S1 (add, counter RAM write, leave for the pending slot) -> pending slot -> AXI-stable
// output register. Read-modify-write forwarding: an event of the QP that S1 writes in the same
// cycle takes S1's new value instead of the RAM's stale read, so back-to-back events of one QP
// stay exact. Coalescing: S1 merges into the pending slot when it holds the same QP and page
// and cannot move (output back-pressure); stat_coalesced counts merged events.
// After rst the unit clears both RAMs, one entry per cycle (QPS cycles, s_ev_ready and
// cfg_ready low). A cfg write waits until S1 is empty and blocks event acceptance in its cycle,
// so it is ordered with the events: events accepted before it still write to the old page
// (at most 2 writes in the pending/output registers; `busy` says when they have left).
// Throughput: one event per cycle without back-pressure. Latency: an event accepted at edge N is
// written from cycle N+3 (S1, pending slot, output register).
module scenic_cq_counter #(
    parameter int unsigned QPS    = scenic_regs_pkg::RDMA_MAX_QP_DEFAULT,
    parameter int unsigned EV_W   = 16,
    parameter int unsigned ADDR_W = 64,
    parameter int unsigned CNT_W  = 32,
    localparam int unsigned QPN_W = (QPS > 1) ? $clog2(QPS) : 1
) (
    input  logic              clk,
    input  logic              rst,

    // page table write port (command path): page address of QP cfg_qpn, 0 = no page
    input  logic [QPN_W-1:0]  cfg_qpn,
    input  logic [ADDR_W-1:0] cfg_page,
    input  logic              cfg_valid,
    output logic              cfg_ready,

    input  logic [QPN_W-1:0]  s_ev_qpn,
    input  logic [EV_W-1:0]   s_ev_cnt,
    input  logic              s_ev_valid,
    output logic              s_ev_ready,

    output logic [ADDR_W-1:0] m_wr_addr,
    output logic [63:0]       m_wr_data,
    output logic              m_wr_valid,
    input  logic              m_wr_ready,

    output logic              busy,       // an accepted event has not been written yet

    output logic [CNT_W-1:0]  stat_events,
    output logic [CNT_W-1:0]  stat_writes,
    output logic [CNT_W-1:0]  stat_coalesced,
    output logic [CNT_W-1:0]  stat_nopage
);

  if (QPS < 2 || QPS > 4096 || (QPS & (QPS - 1)) != 0) begin : g_bad_qps
    $error("QPS must be a power of two 2..4096");
  end
  if (EV_W < 1 || EV_W > 32) begin : g_bad_ev_w
    $error("EV_W must be 1..32");
  end
  if (ADDR_W < 16 || ADDR_W > 64) begin : g_bad_addr_w
    $error("ADDR_W must be 16..64");
  end
  if (CNT_W < 1 || CNT_W > 64) begin : g_bad_cnt_w
    $error("CNT_W must be 1..64");
  end
  localparam int unsigned CTR_OFF_I = scenic_regs_pkg::QP_STATUS_SQ_COMPLETED_OFF;
  if (CTR_OFF_I % 8 != 0 || CTR_OFF_I + 8 > scenic_regs_pkg::QP_STATUS_SIZE) begin : g_bad_layout
    $error("the SQ completion counter must be an aligned u64 inside the status page");
  end

  localparam logic [ADDR_W-1:0] CTR_OFF = ADDR_W'(CTR_OFF_I);

  // ---- RAMs: one synchronous read port, one write port, no reset
  logic [63:0]       ctr_mem [QPS];
  logic [ADDR_W-1:0] page_mem[QPS];
  logic              ram_we;
  logic [QPN_W-1:0]  ram_wa;
  logic [63:0]       ctr_wd;
  logic              page_we;
  logic [ADDR_W-1:0] page_wd;
  logic [63:0]       ctr_rd_q;
  logic [ADDR_W-1:0] page_rd_q;

  // ---- control
  logic              init_q;               // clearing the RAMs after reset
  logic [QPN_W-1:0]  init_idx_q;
  logic              s1_v_q, fwd_q;
  logic [QPN_W-1:0]  s1_qpn_q;
  logic [EV_W-1:0]   s1_cnt_q;
  logic [63:0]       fwd_val_q;
  logic              pend_v_q;
  logic [QPN_W-1:0]  pend_qpn_q;
  logic [ADDR_W-1:0] pend_addr_q;
  logic [63:0]       pend_val_q;
  logic              out_v_q;
  logic [ADDR_W-1:0] out_addr_q;
  logic [63:0]       out_val_q;
  logic [CNT_W-1:0]  c_ev_q, c_wr_q, c_co_q, c_np_q;

  logic              out_free, pend_move, s1_page, merge, s1_adv, acc, cfg_acc;
  logic [63:0]       s1_new;
  logic [ADDR_W-1:0] s1_addr;

  assign out_free   = !out_v_q || m_wr_ready;
  assign pend_move  = pend_v_q && out_free;
  assign s1_new     = (fwd_q ? fwd_val_q : ctr_rd_q) + 64'(s1_cnt_q);
  assign s1_page    = page_rd_q != '0;
  assign s1_addr    = page_rd_q + CTR_OFF;
  assign merge      = pend_v_q && !pend_move && pend_qpn_q == s1_qpn_q && pend_addr_q == s1_addr;
  // S1 leaves this cycle: to nowhere (no page), into a free / moving slot, or merged into it
  assign s1_adv     = s1_v_q && (!s1_page || !pend_v_q || pend_move || merge);
  assign cfg_ready  = !init_q && !s1_v_q;
  assign cfg_acc    = cfg_valid && cfg_ready;
  assign s_ev_ready = !init_q && !cfg_valid && (!s1_v_q || s1_adv);
  assign acc        = s_ev_valid && s_ev_ready;

  // one write port: the reset sweep, a cfg write (S1 empty) or S1's new value
  always_comb begin
    ram_we  = 1'b0;
    page_we = 1'b0;
    ram_wa  = s1_qpn_q;
    ctr_wd  = s1_new;
    page_wd = cfg_page;
    if (init_q) begin
      ram_we  = 1'b1;
      page_we = 1'b1;
      ram_wa  = init_idx_q;
      ctr_wd  = '0;
      page_wd = '0;
    end else if (cfg_acc) begin
      ram_we  = 1'b1;
      page_we = 1'b1;
      ram_wa  = cfg_qpn;
      ctr_wd  = '0;
    end else if (s1_adv) begin
      ram_we = 1'b1;
    end
  end

  always_ff @(posedge clk) begin
    if (ram_we) ctr_mem[ram_wa] <= ctr_wd;
    if (page_we) page_mem[ram_wa] <= page_wd;
    if (acc) begin
      ctr_rd_q  <= ctr_mem[s_ev_qpn];
      page_rd_q <= page_mem[s_ev_qpn];
    end
  end

  always_ff @(posedge clk) begin
    if (acc) begin
      s1_qpn_q  <= s_ev_qpn;
      s1_cnt_q  <= s_ev_cnt;
      // the RAM read above misses S1's write of this edge: forward it
      fwd_q     <= s1_adv && s1_qpn_q == s_ev_qpn;
      fwd_val_q <= s1_new;
    end
    if (pend_move) begin
      out_addr_q <= pend_addr_q;
      out_val_q  <= pend_val_q;
    end
    if (s1_adv && s1_page) begin
      pend_qpn_q  <= s1_qpn_q;
      pend_addr_q <= s1_addr;
      pend_val_q  <= s1_new;
    end
    if (rst) begin
      init_q     <= 1'b1;
      init_idx_q <= '0;
      s1_v_q     <= 1'b0;
      pend_v_q   <= 1'b0;
      out_v_q    <= 1'b0;
      c_ev_q     <= '0;
      c_wr_q     <= '0;
      c_co_q     <= '0;
      c_np_q     <= '0;
    end else begin
      if (init_q) begin
        init_idx_q <= init_idx_q + 1'b1;
        if (init_idx_q == QPN_W'(QPS - 1)) init_q <= 1'b0;
      end
      if (acc) begin
        s1_v_q <= 1'b1;
      end else if (s1_adv) begin
        s1_v_q <= 1'b0;
      end
      if (s1_adv && s1_page) begin
        pend_v_q <= 1'b1;
      end else if (pend_move) begin
        pend_v_q <= 1'b0;
      end
      if (pend_move) begin
        out_v_q <= 1'b1;
      end else if (m_wr_ready) begin
        out_v_q <= 1'b0;
      end
      if (acc && c_ev_q != '1) c_ev_q <= c_ev_q + 1'b1;
      if (s1_adv && s1_page && merge && c_co_q != '1) c_co_q <= c_co_q + 1'b1;
      if (s1_adv && !s1_page && c_np_q != '1) c_np_q <= c_np_q + 1'b1;
      if (out_v_q && m_wr_ready && c_wr_q != '1) c_wr_q <= c_wr_q + 1'b1;
    end
  end

  assign m_wr_valid     = out_v_q;
  assign m_wr_addr      = out_addr_q;
  assign m_wr_data      = out_val_q;
  assign busy           = s1_v_q || pend_v_q || out_v_q;
  assign stat_events    = c_ev_q;
  assign stat_writes    = c_wr_q;
  assign stat_coalesced = c_co_q;
  assign stat_nopage    = c_np_q;

endmodule

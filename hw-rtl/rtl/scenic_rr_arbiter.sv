// SPDX-License-Identifier: MIT
// Round-robin packet arbiter: N SCU input streams onto one output (SCENIC paper section 5.3,
// "performance isolation through separate SCUs ... guarantees fairness through arbitration").
//
// * Grants switch only at packet boundaries: once a packet's first beat is presented on the
//   output, its input keeps the grant until the beat with tlast is accepted, whatever the other
//   inputs do (a granted input may also idle mid-packet; the output then idles too).
// * A grant is also locked as soon as it is presented (m_axis_tvalid high), so the output beat
//   stays stable under back-pressure as AXI4-Stream requires.
// * Round robin: a new packet is taken from the first valid input after the one granted last,
//   so under saturation every input gets one packet per round (fair in packets).
// * Zero-latency combinational path: in an idle cycle a packet's first beat passes in the same
//   cycle (no bubble at packet boundaries). m_axis_tid carries the input index.
//   s_axis_tready depends combinationally on m_axis_tready: put a register slice downstream if
//   timing needs one.
module scenic_rr_arbiter #(
    parameter int unsigned N      = 4,
    parameter int unsigned DATA_W = 512,
    parameter int unsigned ID_W   = (N > 1) ? $clog2(N) : 1
) (
    input  logic                  clk,
    input  logic                  rst,

    input  logic [N*DATA_W-1:0]   s_axis_tdata,
    input  logic [N*DATA_W/8-1:0] s_axis_tkeep,
    input  logic [N-1:0]          s_axis_tvalid,
    output logic [N-1:0]          s_axis_tready,
    input  logic [N-1:0]          s_axis_tlast,

    output logic [DATA_W-1:0]     m_axis_tdata,
    output logic [DATA_W/8-1:0]   m_axis_tkeep,
    output logic                  m_axis_tvalid,
    input  logic                  m_axis_tready,
    output logic                  m_axis_tlast,
    output logic [ID_W-1:0]       m_axis_tid
);

  localparam int unsigned KEEP_W = DATA_W / 8;

  if (N < 1 || N > 16) begin : g_bad_n
    $error("N must be 1..16");
  end
  if (DATA_W < 8 || DATA_W % 8 != 0) begin : g_bad_data_w
    $error("DATA_W must be a multiple of 8");
  end
  if (ID_W < ((N > 1) ? $clog2(N) : 1)) begin : g_bad_id_w
    $error("ID_W too narrow for N");
  end

  logic [ID_W-1:0] last_q;     // input granted last (round-robin pointer)
  logic [ID_W-1:0] lock_id_q;  // locked grant
  logic            lock_q;
  logic [ID_W-1:0] sel;        // input selected this cycle
  logic            sel_ok;
  logic            hs;

  // next valid input after last_q, in round-robin order
  always_comb begin
    logic [ID_W-1:0] cand;
    logic [ID_W:0]   idx;
    cand   = '0;
    sel_ok = 1'b0;
    for (int k = 1; k <= N; k++) begin
      idx = {1'b0, last_q} + (ID_W+1)'(k);
      if (idx >= (ID_W+1)'(N)) begin
        idx = idx - (ID_W+1)'(N);
      end
      if (!sel_ok && s_axis_tvalid[idx[ID_W-1:0]]) begin
        sel_ok = 1'b1;
        cand   = idx[ID_W-1:0];
      end
    end
    sel = lock_q ? lock_id_q : cand;
  end

  always_comb begin
    m_axis_tdata  = s_axis_tdata[sel*DATA_W +: DATA_W];
    m_axis_tkeep  = s_axis_tkeep[sel*KEEP_W +: KEEP_W];
    m_axis_tlast  = s_axis_tlast[sel];
    m_axis_tvalid = (lock_q || sel_ok) && s_axis_tvalid[sel];
    m_axis_tid    = sel;
    s_axis_tready = '0;
    if (lock_q || sel_ok) begin
      s_axis_tready[sel] = m_axis_tready;
    end
  end

  assign hs = m_axis_tvalid && m_axis_tready;

  always_ff @(posedge clk) begin
    if (rst) begin
      last_q    <= ID_W'(N - 1);   // input 0 is first after reset
      lock_q    <= 1'b0;
      lock_id_q <= '0;
    end else begin
      if (m_axis_tvalid && !lock_q) begin
        last_q    <= sel;          // a new packet is presented: it owns the output
        lock_id_q <= sel;
      end
      // hold the grant until the tlast beat is accepted
      lock_q <= (lock_q || m_axis_tvalid) && !(hs && m_axis_tlast);
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst) begin
      assert (!lock_q || {1'b0, lock_id_q} < (ID_W+1)'(N)) else $error("grant out of range");
      assert ($onehot0(s_axis_tready)) else $error("more than one input ready");
    end
  end
`endif

endmodule

"""Small IR models the Python tests share, as text (written to a file where a test needs one)."""

# y = x + h; h_out = y: a running sum whose state the caller would otherwise feed back.
RUNNING_SUM = """<?xml version="1.0"?>
<net name="running_sum" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="1,4" element_type="f32"/>
      <output><port id="0" precision="FP32" names="x"><dim>1</dim><dim>4</dim></port></output>
    </layer>
    <layer id="1" name="h" type="Parameter" version="opset1">
      <data shape="1,4" element_type="f32"/>
      <output><port id="0" precision="FP32" names="h"><dim>1</dim><dim>4</dim></port></output>
    </layer>
    <layer id="2" name="sum" type="Add" version="opset1">
      <input><port id="0"><dim>1</dim><dim>4</dim></port><port id="1"><dim>1</dim><dim>4</dim></port></input>
      <output><port id="2" precision="FP32" names="y"><dim>1</dim><dim>4</dim></port></output>
    </layer>
    <layer id="3" name="y" type="Result" version="opset1">
      <input><port id="0"><dim>1</dim><dim>4</dim></port></input>
    </layer>
    <layer id="4" name="h_out" type="Result" version="opset1">
      <input><port id="0"><dim>1</dim><dim>4</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
    <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
    <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
    <edge from-layer="2" from-port="2" to-layer="4" to-port="0"/>
  </edges>
</net>
"""

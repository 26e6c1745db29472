# UMass / SPC style sample (Financial1-like)
# ASU,LBA,Size,Opcode,Timestamp[,...]
0,303567,3584,w,0.000000
1,55590,3072,r,0.000000
0,303574,4096,W,0.026214

2,1123,512,R,0.026214,extra,fields
0,303581,8192,w,1.5
1,0,65536,r,12.000000001

# Conformance: running past the last group traps (as on ST231: "jump to <end> outside the
# code", at the end address, no function); --trace prints only issued groups (1 here).
#   g1 0x1000 MAKE R0, 1  t=0;  then 0x1004 is past the code -> trap
# expect: trap="jump to 0x00001004 outside the code" trap_pc=0x1004 trap_fn=none exit=-1 bundles=1
        .target st120
main:   MAKE R0, 1 ;;

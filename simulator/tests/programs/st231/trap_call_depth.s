# Unbounded recursion stopped by the call-depth limit (options: max_call_depth=50).
# options: max_call_depth=50
# expect: trap="call depth limit exceeded" trap_fn=f fn:f.calls=49
.target st231
main:
    call f ;;
f:
    call f ;;

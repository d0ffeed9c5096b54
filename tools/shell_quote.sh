# quote ARG...: one command line to copy and paste, the arguments with
# shell-special characters in single quotes. Sourced by tools/ncu_time.sh and
# tools/cupti_vs_ncu.sh (not run on its own).
quote() {
    local a s=""
    for a in "$@"; do
        case $a in
        *[!A-Za-z0-9_./=:@^+,-]* | "") s+=" '${a//\'/\'\\\'\'}'" ;;
        *) s+=" $a" ;;
        esac
    done
    echo "${s# }"
}

# SPDX-License-Identifier: BSD-3-Clause
# Bash completion for Meridian's commands: meridian_info, meridian_carto,
# meridian_netmap and qmp-config.  Installed under each command's name in
# bash-completion's directory (DATADIR/bash-completion/completions, or
# configure's --with-bash-completion-dir), where bash-completion loads it on
# the command's first completion; without bash-completion, source it from
# ~/.bashrc.  It needs nothing of bash-completion's own functions.
#
# MCA parameter names (--mca), frameworks and components (--param) come from
# the meridian_info next to the command being completed (or on PATH), once
# per shell session and environment: the names of the parameters that
# Meridian and the components it finds register, as `meridian_info --all
# --parsable` lists them.

# The words of --all --parsable that complete FIELD (frameworks, components
# of FRAMEWORK, parameters), from the meridian_info beside COMMAND.
_meridian_names()
{
    local command=$1 field=$2 framework=${3:-}
    local info
    info=$(dirname -- "$(type -P -- "$command" 2>/dev/null || echo .)")/meridian_info
    [[ -x $info ]] || info=$(type -P meridian_info 2>/dev/null) || return 0
    # Cached per meridian_info and component path: the names change only with
    # the installation or the settings.
    local key="$info|${MERIDIAN_MCA_mca_base_component_path:-}|${MERIDIAN_MCA_mca_base_param_files:-}"
    if [[ ${_meridian_cache_key:-} != "$key" ]]; then
        _meridian_cache=$("$info" --all --parsable 2>/dev/null)
        _meridian_cache_key=$key
    fi
    case $field in
    framework)
        awk -F: '$1 == "mca" && $3 == "base" && $4 == "description" { print $2 }' \
            <<<"$_meridian_cache"
        ;;
    component)
        awk -F: -v fw="$framework" '$1 == "mca" && ($2 == fw || fw == "all") && $3 != "base" { print $3 }' \
            <<<"$_meridian_cache" | sort -u
        ;;
    param)
        awk -F: '$1 == "mca" && $4 == "param" { print $5 }' <<<"$_meridian_cache" | sort -u
        ;;
    esac
}

# COMPREPLY from WORDS for CURRENT, one per line of WORDS.
_meridian_reply()
{
    local IFS=$'\n'
    # shellcheck disable=SC2207 # compgen's words, one a line
    COMPREPLY=($(compgen -W "$1" -- "$2"))
}

# The word being completed and the two before it, into the caller's
# current, previous and before; then what follows --mca (a name, then its
# value) and --tune (files), shared by every Meridian command.  Returns 0
# when it answered.
_meridian_start()
{
    current=${COMP_WORDS[COMP_CWORD]}
    previous=${COMP_WORDS[COMP_CWORD - 1]:-}
    before=""
    ((COMP_CWORD >= 2)) && before=${COMP_WORDS[COMP_CWORD - 2]}
    COMPREPLY=()
    if [[ $previous == --mca ]]; then
        _meridian_reply "$(_meridian_names "${COMP_WORDS[0]}" param)" "$current"
        return 0
    fi
    if [[ $before == --mca ]]; then
        COMPREPLY=() # a value: nothing to offer
        return 0
    fi
    if [[ $previous == --tune ]]; then
        # shellcheck disable=SC2207
        COMPREPLY=($(compgen -f -- "$current"))
        return 0
    fi
    return 1
}

_meridian_info()
{
    local current previous before
    _meridian_start && return 0
    case $previous in
    --param)
        _meridian_reply "all"$'\n'"mca"$'\n'"$(_meridian_names "${COMP_WORDS[0]}" framework)" "$current"
        return 0
        ;;
    -l | --level)
        _meridian_reply "$(seq 1 9)" "$current"
        return 0
        ;;
    --path)
        _meridian_reply "$(printf '%s\n' prefix bindir libdir incdir pkglibdir sysconfdir datadir \
            mandir componentdir all)" "$current"
        return 0
        ;;
    esac
    if [[ $before == --param ]]; then
        _meridian_reply "all"$'\n'"base"$'\n'"$(_meridian_names "${COMP_WORDS[0]}" component "$previous")" \
            "$current"
        return 0
    fi
    _meridian_reply "$(printf '%s\n' --param --level --all --path --show-failed --parsable --json \
        --help --version --mca --tune)" "$current"
}

_meridian_carto()
{
    local current previous before
    _meridian_start && return 0
    case $previous in
    -t | --type)
        _meridian_reply "$(printf '%s\n' SLOT MEM ETH IB OTHER ALL)" "$current"
        return 0
        ;;
    -f | --format)
        _meridian_reply "$(printf '%s\n' carto dot json)" "$current"
        return 0
        ;;
    esac
    # The command: the first word that is neither an option nor an option's
    # value.
    local i command=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        --mca) ((i += 2)) ;;
        --tune | -t | --type | -f | --format) ((i += 1)) ;;
        -*) ;;
        *)
            command=${COMP_WORDS[i]}
            break
            ;;
        esac
    done
    if [[ -z $command && $current != -* ]]; then
        _meridian_reply "$(printf '%s\n' graph distance path vertices help)" "$current"
        return 0
    fi
    if [[ $current != -* && ($command == distance || $command == path) ]]; then
        # The map's vertices, as this command line's settings give the map.
        local -a settings=()
        for ((i = 1; i < COMP_CWORD; i++)); do
            case ${COMP_WORDS[i]} in
            --mca) settings+=("${COMP_WORDS[@]:i:3}") && ((i += 2)) ;;
            --tune) settings+=("${COMP_WORDS[@]:i:2}") && ((i += 1)) ;;
            esac
        done
        _meridian_reply "$("${COMP_WORDS[0]}" "${settings[@]}" vertices 2>/dev/null |
            awk '{ print $1 }')" "$current"
        return 0
    fi
    _meridian_reply "$(printf '%s\n' --type --format --help --version --mca --tune)" "$current"
}

_meridian_netmap()
{
    local current previous before
    _meridian_start && return 0
    case $previous in
    --fabric)
        # shellcheck disable=SC2207
        COMPREPLY=($(compgen -f -- "$current"))
        return 0
        ;;
    --bind)
        _meridian_reply "$(printf '%s\n' core package none)" "$current"
        return 0
        ;;
    --format)
        _meridian_reply "$(printf '%s\n' table json)" "$current"
        return 0
        ;;
    --view)
        _meridian_reply "$(printf '%s\n' logical physical)" "$current"
        return 0
        ;;
    --request)
        _meridian_reply "$(printf '%s\n' id= type= plane= endpts= seckey qos= bw= required)" \
            "$current"
        compopt -o nospace 2>/dev/null
        return 0
        ;;
    --hosts)
        return 0
        ;;
    esac
    _meridian_reply "$(printf '%s\n' --fabric --hosts --bind --request --format --view --help \
        --version --mca --tune)" "$current"
}

_meridian_qmp_config()
{
    local current=${COMP_WORDS[COMP_CWORD]}
    COMPREPLY=()
    _meridian_reply "$(printf '%s\n' --prefix --exec-prefix --version --comms --cc --cxx --copts \
        --cxxopts --cflags --ldflags --libs --static --mpi --libdir --includedir --ar --ranlib \
        --help)" "$current"
}

complete -F _meridian_info meridian_info
complete -F _meridian_carto meridian_carto
complete -F _meridian_netmap meridian_netmap
complete -F _meridian_qmp_config qmp-config

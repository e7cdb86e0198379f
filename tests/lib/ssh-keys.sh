# ssh_keys DIR: the keys and client config of a test network of sshds
# (tests/e2e/multihost.t, bench/hosts-scale.sh): a host key DIR/host, a
# user key DIR/id allowed by DIR/authorized_keys, and DIR/client.conf
# using it without known_hosts, exported as LOADBENCH_SSH_CONFIG.
ssh_keys() {
    mkdir -p "$1" /run/sshd
    ssh-keygen -q -t ed25519 -N '' -f "$1/host" -C lb-test-host
    ssh-keygen -q -t ed25519 -N '' -f "$1/id" -C lb-test-user
    cp "$1/id.pub" "$1/authorized_keys"
    cat > "$1/client.conf" <<EOC
Host *
    IdentityFile $1/id
    IdentitiesOnly yes
    StrictHostKeyChecking no
    UserKnownHostsFile /dev/null
    LogLevel ERROR
EOC
    LOADBENCH_SSH_CONFIG="$1/client.conf"
    export LOADBENCH_SSH_CONFIG
}

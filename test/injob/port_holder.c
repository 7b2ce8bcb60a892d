/* SPDX-License-Identifier: BSD-3-Clause */
/* A program that holds a port, for ledger.sh: port_holder PROTOCOL FIRST
 * LAST FILE binds the first port of FIRST..LAST it can on 127.0.0.1 (tcp:
 * and listens; udp: bound), writes the port to FILE (whole, by rename),
 * and keeps it until a signal ends it or 120 seconds have passed. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 5 || (strcmp(argv[1], "tcp") != 0 && strcmp(argv[1], "udp") != 0)) {
        fprintf(stderr, "usage: port_holder tcp|udp FIRST LAST FILE\n");
        return 2;
    }
    const int tcp = strcmp(argv[1], "tcp") == 0;
    const long first = strtol(argv[2], NULL, 10);
    const long last = strtol(argv[3], NULL, 10);
    if (first < 1 || last > 65535 || first > last) {
        fprintf(stderr, "port_holder: expected 1 <= FIRST <= LAST <= 65535, found %s %s\n", argv[2],
                argv[3]);
        return 2;
    }
    int fd = -1;
    long port = first;
    for (; port <= last; ++port) {
        fd = socket(AF_INET, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
        if (fd < 0) {
            perror("port_holder: socket");
            return 1;
        }
        struct sockaddr_in address;
        memset(&address, 0, sizeof address);
        address.sin_family = AF_INET;
        address.sin_port = htons((unsigned short)port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (bind(fd, (struct sockaddr *)&address, sizeof address) == 0 &&
            (!tcp || listen(fd, 1) == 0)) {
            break;
        }
        close(fd);
        fd = -1;
    }
    if (fd < 0) {
        fprintf(stderr, "port_holder: no %s port of %ld-%ld is free\n", argv[1], first, last);
        return 1;
    }
    char temporary[4096];
    snprintf(temporary, sizeof temporary, "%s.tmp", argv[4]);
    FILE *out = fopen(temporary, "w");
    if (out == NULL || fprintf(out, "%ld\n", port) < 0 || fclose(out) != 0 ||
        rename(temporary, argv[4]) != 0) {
        perror("port_holder: writing the port");
        return 1;
    }
    /* Bounded, so a test that dies cannot leave it behind for long. */
    for (int i = 0; i < 120; ++i) {
        sleep(1);
    }
    close(fd);
    return 0;
}

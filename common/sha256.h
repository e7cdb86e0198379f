/* sha256: the digest of a file, to record which tool binary was measured. */
#ifndef LB_SHA256_H
#define LB_SHA256_H

/* Hex SHA-256 of the file at path into hex (65 bytes). Returns 0, or -1
 * when the file cannot be read. */
int sha256_file_hex(const char *path, char hex[65]);

/* Hex SHA-256 of what is left to read from fd (read to its end, not
 * closed). Returns 0, or -1 on a read error. */
int sha256_fd_hex(int fd, char hex[65]);

/* Hex SHA-256 of a buffer. */
void sha256_hex(const void *data, unsigned long len, char hex[65]);

#endif

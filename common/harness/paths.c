/* paths.c - see paths.h. */
#include "harness/paths.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int path_join(char *buffer, size_t capacity, const char *dir, const char *file, char *message,
              size_t message_capacity)
{
    int length = snprintf(buffer, capacity, "%s/%s", dir, file);
    if (length >= 0 && (size_t)length < capacity)
        return 0;
    snprintf(message, message_capacity,
             "the path %.60s.../%s (%zu characters) is longer than the %zu characters this "
             "program's path buffer holds",
             dir, file, strlen(dir) + 1 + strlen(file), capacity - 1);
    return -1;
}

int path_check_parent(const char *path, char *message, size_t capacity)
{
    /* The directory part of path: up to its last '/', trailing ones aside. */
    char parent[PATHS_MAX];
    size_t length = strlen(path);
    if (length >= sizeof parent) {
        snprintf(message, capacity, "%.60s...: the path is longer than the %zu characters a path "
                 "may have here", path, sizeof parent - 1);
        return -1;
    }
    memcpy(parent, path, length + 1);
    while (length > 1 && parent[length - 1] == '/')
        parent[--length] = '\0';
    char *slash = strrchr(parent, '/');
    if (!slash)
        strcpy(parent, ".");
    else if (slash == parent)
        parent[1] = '\0';
    else
        *slash = '\0';

    struct stat info;
    if (stat(parent, &info) != 0) {
        if (errno == ENOENT)
            snprintf(message, capacity, "%s: the directory %s does not exist", path, parent);
        else
            snprintf(message, capacity, "%s: the directory %s cannot be reached: %s", path, parent,
                     strerror(errno));
        return -1;
    }
    if (!S_ISDIR(info.st_mode)) {
        snprintf(message, capacity, "%s: %s is not a directory", path, parent);
        return -1;
    }
    if (access(parent, W_OK | X_OK) != 0) {
        snprintf(message, capacity, "%s: cannot create it in the directory %s: %s", path, parent,
                 strerror(errno));
        return -1;
    }
    return 0;
}

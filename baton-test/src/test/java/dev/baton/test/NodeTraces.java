package dev.baton.test;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** What a topology's nodes leave on the machine while they run, to check that close() removes all of it. */
record NodeTraces(List<Long> pids, List<Path> dirs) {

    static NodeTraces of(List<RedisServer> nodes) {
        return new NodeTraces(nodes.stream().map(RedisServer::pid).collect(Collectors.toList()),
                nodes.stream().map(n -> n.logFile().getParent()).collect(Collectors.toList()));
    }

    boolean anyAlive() {
        return pids.stream().anyMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
    }

    /** Pids of this JVM's live child processes (redis-server nodes among them), for checks of failed starts. */
    static Set<Long> liveChildren() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
                .collect(Collectors.toSet());
    }
}

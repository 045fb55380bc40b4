package dev.baton.test;

/** Main class for {@link ShutdownHookTest}: starts a server, reports it, and crashes without closing it. */
public final class ShutdownHookProbe {

    private ShutdownHookProbe() {
    }

    public static void main(String[] args) {
        RedisServer server = RedisServer.start();
        String dir = server.command("CONFIG", "GET", "dir").split("\n")[1];
        server.pause(); // the hook must also get rid of a frozen server
        System.out.println(server.pid() + " " + dir);
        System.out.flush();
        throw new IllegalStateException("simulated test JVM crash");
    }
}

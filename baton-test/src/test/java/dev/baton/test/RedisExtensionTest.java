package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/** Each test deliberately leaves the server in a worse state; the next one must still get a healthy, empty one. */
@ExtendWith(RedisExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisExtensionTest {

    private static RedisServer fromBeforeAll;
    private static int originalPort;
    private static String scriptSha;

    private final RedisServer fromConstructor;

    RedisExtensionTest(RedisServer server) {
        this.fromConstructor = server;
    }

    @BeforeAll
    static void rememberServer(RedisServer server) {
        fromBeforeAll = server;
        originalPort = server.port();
    }

    @BeforeEach
    void serverIsAlreadyCleanInBeforeEach(RedisServer server) {
        assertThat(server.command("DBSIZE")).isEqualTo("0");
    }

    @Test
    @Order(1)
    void injectsOneServerIntoConstructorLifecycleMethodsAndTests(RedisServer server) {
        assertThat(server).isSameAs(fromBeforeAll).isSameAs(fromConstructor);
        assertThat(server.command("PING")).isEqualTo("PONG");
    }

    @Test
    @Order(2)
    void leavesDataAndAScriptThenKillsTheServer(RedisServer server) {
        server.command("SET", "k", "v");
        scriptSha = server.command("SCRIPT", "LOAD", "return 1");
        assertThat(server.command("SCRIPT", "EXISTS", scriptSha)).isEqualTo("1");

        server.kill();
    }

    @Test
    @Order(3)
    void startsEmptyAfterAKillAndThenPausesTheServer(RedisServer server) {
        assertThat(server.isRunning()).isTrue();
        assertThat(server.port()).isEqualTo(originalPort);
        assertThat(server.command("DBSIZE")).isEqualTo("0");
        assertThat(server.command("SCRIPT", "EXISTS", scriptSha)).isEqualTo("0");
        server.command("SET", "k", "v");
        scriptSha = server.command("SCRIPT", "LOAD", "return 2");

        server.pause();
    }

    @Test
    @Order(4)
    void startsEmptyAfterAPauseAndThenStopsTheServer(RedisServer server) {
        assertThat(server.command("DBSIZE")).isEqualTo("0");
        assertThat(server.command("SCRIPT", "EXISTS", scriptSha)).isEqualTo("0");
        server.command("SET", "k", "v");

        server.stop();
    }

    @Test
    @Order(5)
    void startsEmptyAfterAStopAndThenClosesTheServer(RedisServer server) {
        assertThat(server).isSameAs(fromBeforeAll);
        assertThat(server.command("DBSIZE")).isEqualTo("0");
        server.command("SET", "k", "v");

        server.close();
    }

    @Test
    @Order(6)
    void getsAFreshServerAfterAClose(RedisServer server) {
        assertThat(server).isNotSameAs(fromBeforeAll);
        assertThat(server.isRunning()).isTrue();
        assertThat(server.command("DBSIZE")).isEqualTo("0");
    }
}

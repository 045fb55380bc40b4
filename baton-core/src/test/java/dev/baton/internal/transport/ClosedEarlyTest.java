package dev.baton.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.nio.channels.ClosedChannelException;
import org.junit.jupiter.api.Test;

/**
 * The shapes in which Lettuce reports that a server hung up on a new connection (as a TLS port does to a plain
 * client), each as the first connection's failure carries it: all of them count as "closed early", which is what
 * makes the gateway ask whether the port speaks TLS. Which shape a hang-up takes depends on timing, so TlsIT alone
 * would meet them only by chance; here each is given. Timeouts and refusals are not hang-ups.
 */
class ClosedEarlyTest {

    private static RedisConnectionException connecting(Throwable cause) {
        return new RedisConnectionException("Unable to connect to 127.0.0.1/<unresolved>:6380", cause);
    }

    @Test
    void aHangUpBeforeLettuceCouldStartItsHandshakeIsClosedEarly() {
        // Seen on a loaded machine: the channel was closed, and its handlers removed, before the connect listener ran.
        assertThat(RedisGateway.closedEarly(connecting(new IllegalStateException(
                "RedisHandshakeHandler not registered")))).isTrue();
    }

    @Test
    void aHangUpDuringTheHandshakeInEveryWordingIsClosedEarly() {
        assertThat(RedisGateway.closedEarly(connecting(new SocketException("Connection reset")))).isTrue();
        assertThat(RedisGateway.closedEarly(connecting(new IOException(
                "recvAddress(..) failed: Connection reset by peer")))).isTrue();
        assertThat(RedisGateway.closedEarly(connecting(new RedisConnectionException(
                "Connection closed prematurely")))).isTrue();
        assertThat(RedisGateway.closedEarly(connecting(new ClosedChannelException()))).isTrue();
        assertThat(RedisGateway.closedEarly(connecting(new IOException(
                "writevAddresses(..) failed: Broken pipe")))).isTrue();
    }

    @Test
    void aTimeoutOrARefusalIsNotAHangUp() {
        assertThat(RedisGateway.closedEarly(connecting(new RedisCommandTimeoutException(
                "Connection initialization timed out after 2 second(s)")))).isFalse();
        assertThat(RedisGateway.closedEarly(connecting(new ConnectException("Connection refused")))).isFalse();
        assertThat(RedisGateway.closedEarly(connecting(null))).isFalse();
    }
}

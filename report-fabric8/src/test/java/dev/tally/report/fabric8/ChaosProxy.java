package dev.tally.report.fabric8;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy between a client and an API server (the mock, or the real one of kube-testenv: TLS
 * passes through untouched) that can cut every open connection at once, as a network blip or an API
 * server restart would: watches drop, in-flight requests fail, new connections go through unless
 * the proxy {@linkplain #refuse refuses} them, as during a partition.
 */
final class ChaosProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final int targetPort;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;
  private volatile boolean refusing;

  ChaosProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "chaos-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return listener.getLocalPort();
  }

  /**
   * While {@code refuse} is true every new connection is closed at once (the client sees its
   * requests fail and retries); false lets them through again.
   */
  void refuse(boolean refuse) {
    this.refusing = refuse;
  }

  /** Closes every connection open now. */
  void dropAll() {
    for (Socket s : open) {
      try {
        s.close();
      } catch (IOException e) {
        // already closed
      }
    }
    open.clear();
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        if (refusing) {
          close(client);
          continue;
        }
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        open.add(client);
        open.add(upstream);
        pump(client, upstream);
        pump(upstream, client);
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException e) {
                // the connection was dropped
              } finally {
                close(from);
                close(to);
              }
            },
            "chaos-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private void close(Socket s) {
    open.remove(s);
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    listener.close();
    dropAll();
  }
}

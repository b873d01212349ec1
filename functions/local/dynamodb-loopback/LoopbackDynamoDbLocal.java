/*
 * DynamoDB Local on 127.0.0.1 only, behind a Host check and a secret (started by
 * functions/local/dynamodb-local.ts; compiled and cached by functions/local/dynamodb-loopback.ts).
 *
 * DynamoDBLocal.jar has no option for the address it listens on: its Jetty server takes every
 * interface, and answers anyone who reaches it, so anyone on the network could read and write
 * every task and park token. This builds the very server the jar's own main builds, from the same
 * arguments, then, before it starts, binds its connector to 127.0.0.1 and puts a guard in front
 * of its handler:
 * - Host must be 127.0.0.1 or localhost at this port (421 otherwise): a DNS-rebinding page
 *   carries its own host name;
 * - the path must be /<secret> (403 otherwise): other users of this machine can reach a loopback
 *   port, but not read the secret, which comes in the environment (TINY_HARNESS_DYNAMODB_SECRET,
 *   readable by this user only) and never on the command line (readable by every user).
 * DynamoDB's protocol ignores the path, so the SDK clients need only the endpoint
 * http://127.0.0.1:<port>/<secret>.
 *
 * `--compile <this file> <dir>` compiles this file into <dir> with Java's own compiler (the module
 * the source launcher uses), so that later starts run the class and compile nothing.
 */
import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.Set;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.eclipse.jetty.server.AbstractNetworkConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.HandlerWrapper;

public final class LoopbackDynamoDbLocal {
  static final String LOOPBACK = "127.0.0.1";
  static final String SECRET_VARIABLE = "TINY_HARNESS_DYNAMODB_SECRET";

  public static void main(String[] args) throws Exception {
    if (args.length == 3 && args[0].equals("--compile")) {
      System.exit(compile(args[1], args[2]));
    }
    String secret = System.getenv(SECRET_VARIABLE);
    if (secret == null || secret.isEmpty()) {
      System.err.println(SECRET_VARIABLE + " is not set: refusing to serve without it");
      System.exit(2);
    }
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    // The jar's server keeps its Jetty server to itself; its field is the only way in.
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    int port = -1;
    for (Connector connector : server.getConnectors()) {
      AbstractNetworkConnector network = (AbstractNetworkConnector) connector;
      network.setHost(LOOPBACK);
      port = network.getPort();
    }
    if (port <= 0) {
      System.err.println("DynamoDB Local has no network connector with a fixed port to bind");
      System.exit(2);
    }
    Guard guard = new Guard(secret, port);
    guard.setHandler(server.getHandler());
    server.setHandler(guard);
    proxy.start();
  }

  private static int compile(String source, String directory) {
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    if (compiler == null) {
      System.err.println("this Java has no compiler (module jdk.compiler)");
      return 3;
    }
    String classPath = System.getProperty("java.class.path");
    return compiler.run(
        null, null, null, "--release", "17", "-cp", classPath, "-d", directory, source);
  }

  /** Refuses what is not for this server before DynamoDB Local's handler sees it. */
  static final class Guard extends HandlerWrapper {
    private final byte[] secretPath;
    private final Set<String> hosts;

    Guard(String secret, int port) {
      this.secretPath = ("/" + secret).getBytes(StandardCharsets.UTF_8);
      this.hosts = Set.of(LOOPBACK + ":" + port, "localhost:" + port);
    }

    @Override
    public void handle(
        String target, Request base, HttpServletRequest request, HttpServletResponse response)
        throws IOException, ServletException {
      String host = request.getHeader("Host");
      if (host == null || !hosts.contains(host.toLowerCase(Locale.ROOT))) {
        refuse(base, response, 421, "text/plain; charset=utf-8",
            "misdirected request: DynamoDB Local here answers only to Host " + hosts + "\n");
        return;
      }
      String path = base.getRequestURI() == null ? "" : base.getRequestURI();
      if (path.endsWith("/")) path = path.substring(0, path.length() - 1);
      if (!MessageDigest.isEqual(path.getBytes(StandardCharsets.UTF_8), secretPath)) {
        refuse(base, response, 403, "application/x-amz-json-1.0",
            "{\"__type\":\"com.amazonaws.dynamodb.v20120810#AccessDeniedException\","
                + "\"message\":\"This DynamoDB Local is the local stack's own: use the endpoint"
                + " it was started with\"}");
        return;
      }
      super.handle(target, base, request, response);
    }

    private static void refuse(
        Request base, HttpServletResponse response, int status, String type, String body)
        throws IOException {
      base.setHandled(true);
      response.setStatus(status);
      response.setContentType(type);
      response.setHeader("Connection", "close");
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      response.setContentLength(bytes.length);
      response.getOutputStream().write(bytes);
    }
  }
}

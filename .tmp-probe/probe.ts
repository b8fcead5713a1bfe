import SockJS from 'sockjs-client';
import { Client } from '@stomp/stompjs';
import { startServer } from '../test/stomp/helpers.ts';
const server = await startServer({ sockJsHeartbeatMs: 25000 });
server.snapshot = '{"x":1}';
for (const transport of ['websocket', 'xhr-streaming', 'xhr-polling']) {
  const msgs: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const client = new Client({
      webSocketFactory: () => new SockJS(`http://127.0.0.1:${server.port}/ws`, null, { transports: transport }),
      reconnectDelay: 0, heartbeatIncoming: 0, heartbeatOutgoing: 0,
      debug: (m) => {},
    });
    client.onConnect = () => {
      client.subscribe('/topic/metrics', (m) => { msgs.push(m.body); if (msgs.length === 2) { console.log(transport, 'ok', msgs, (client.webSocket as any)?.transport); client.deactivate().then(resolve); } });
      client.publish({ destination: '/app/subscribe' });
    };
    client.onStompError = (f) => reject(new Error(f.headers.message));
    client.onWebSocketClose = (e) => console.log(transport, 'closed', e.code, e.reason);
    client.activate();
    setTimeout(() => reject(new Error('timeout ' + transport)), 8000);
  }).catch((e) => console.log('FAIL', String(e)));
}
server.stop();
process.exit(0);

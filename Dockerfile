# Vigil: one image, TypeScript run by tsx (no build step). Set DATABASE_URL to use your own
# PostgreSQL; without it the embedded PostgreSQL keeps its data in the /data volume.
FROM node:20-bookworm-slim
WORKDIR /app
RUN npm install -g npm@11
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workers ./workers
COPY migrations ./migrations
RUN mkdir -p /data && chown node:node /data
USER node
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 VIGIL_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8080
STOPSIGNAL SIGTERM
CMD ["node", "--import", "tsx", "src/main.ts"]

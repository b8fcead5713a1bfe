# Vigil: compiled JavaScript on Node 24 (the active LTS) on Debian 13 (trixie), whose glibc 2.41
# the uWebSockets.js build for Node 22 and later needs (>= 2.38; bookworm's 2.36 is too old).
# The build stage compiles src, workers and migrations with tsc (tsconfig.build.json); the image
# carries dist/ and the production dependencies only.
# Set DATABASE_URL to use your own PostgreSQL; without it the embedded PostgreSQL keeps its data
# in the /data volume.
FROM node:24-trixie-slim AS build
WORKDIR /app
RUN npm install -g npm@11
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workers ./workers
COPY migrations ./migrations
RUN npm run build

FROM node:24-trixie-slim
WORKDIR /app
RUN npm install -g npm@11
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 VIGIL_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8080
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/main.js"]

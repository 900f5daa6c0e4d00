<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" tiledversion="1.10.2" name="tiles" tilewidth="16" tileheight="16" tilecount="7" columns="7">
 <image source="../sprites/tiles.png" width="112" height="16"/>
 <tile id="0">
  <properties>
   <property name="kind" value="solid"/>
  </properties>
 </tile>
 <tile id="1">
  <properties>
   <property name="kind" value="one_way"/>
  </properties>
 </tile>
 <tile id="2">
  <properties>
   <property name="kind" value="ladder"/>
  </properties>
 </tile>
</tileset>
